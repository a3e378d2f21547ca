"""Claude Code: ``ANTHROPIC_BASE_URL`` at the fake model, driven with ``claude -p``.

The session answers in text, runs Bash, Read, Write and Edit, is resumed by id, and is
then forked with ``--resume <id> --fork-session``: Claude Code writes the fork as a new
session file that repeats the original's messages (same uuids) before its own turn. The
original goes on: ``/model`` and ``/cost`` (commands, not prompts: Claude Code writes them
as command records with their output as its own notices), a reply that thinks first and
makes three calls at once (one prints 400 lines, one reads a picture), two calls that fail,
two subagents started in one reply (each written to ``<session>/subagents/agent-*.jsonl``
beside a ``.meta.json``), a ``/compact`` and a prompt after the summary.
File checkpointing is on, as it is in the terminal, so each prompt has its file snapshot.
"""

from __future__ import annotations

import base64
import json

from tests.corpus.recipe import Recipe, Run

TOOLS = "Agent Bash Read Write Edit"
# a 1×1 picture for the Read tool to return as an image
DOT = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
                       "HwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


def _env(run: Run) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": run.model_url, "ANTHROPIC_API_KEY": "fake-key-not-secret",
            "CLAUDE_CONFIG_DIR": str(run.home / ".claude"), "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING": "1"}


def _setup(run: Run) -> None:
    (run.work / "dot.png").write_bytes(DOT)


def _ask(run: Run, text: str, *more: str, typed: bool = True) -> str:
    """One ``claude -p`` turn; the session id Claude Code reports for it."""
    said = run.prompt(text) if typed else text
    out = run.call(["-p", "--output-format", "json", "--model", "claude-sonnet-4-5",
                    "--allowedTools", TOOLS, *more, "--", said], timeout=300).stdout
    return str(json.loads(out.strip().splitlines()[-1])["session_id"])


def _drive(run: Run) -> None:
    session = _ask(run, "Say hello and tell me what this folder is for.")
    _ask(run, "Look around.\nTOOL:bash:ls -1\nTOOL:read:" + str(run.work / "notes.txt"),
         "--resume", session)
    _ask(run, "Write and then edit a file.\n"
         f"TOOL:write:{run.work / 'todo.txt'}:buy milk\\nwalk dog\n"
         f"TOOL:edit:{run.work / 'todo.txt'}:buy milk=>buy oat milk",
         "--resume", session)
    _ask(run, "A different road from here: count the lines.\nTOOL:bash:wc -l notes.txt",
         "--resume", session, "--fork-session")
    for command in ("/model", "/cost"):
        _ask(run, command, "--resume", session, typed=False)
    _ask(run, "Think first, then do three things at once.\n"
         "THINK:The notes first, then the todo list and the picture.\n"
         f"TOOL:bash:seq 1 400\nTOOL+:read:{run.work / 'todo.txt'}\n"
         f"TOOL+:read:{run.work / 'dot.png'}", "--resume", session)
    _ask(run, "Now two things that fail.\nTOOL:bash:false\n"
         f"TOOL:read:{run.work / 'missing.txt'}", "--resume", session)
    _ask(run, "Hand two jobs to subagents.\nTHINK:Two jobs that need not wait on each other.\n"
         "TOOL:task:Count the notes:Count the lines of the notes.\\nTOOL:bash:wc -l notes.txt\n"
         f"TOOL+:task:Read the todo list:Read the todo list.\\nTOOL:read:{run.work / 'todo.txt'}",
         "--resume", session)
    _ask(run, "/compact", "--resume", session, typed=False)
    _ask(run, "After the summary: what is left to do?", "--resume", session)


RECIPE = Recipe(
    name="claude_code", tool="claude-code", format="claude_code",
    package="npm:@anthropic-ai/claude-code", version="2.1.332", bin="claude",
    drive=_drive, env=_env, setup=_setup,
    collect=(".claude/projects/**/*.jsonl", ".claude/projects/**/*.meta.json"),
    exercises="text answer; Bash, Read, Write and Edit calls with their results; resumed "
              "by id; forked with --fork-session into a second session file; signed "
              "thinking; /model and /cost; three parallel calls, one reading a picture; a "
              "failing command and a missing file; two subagents started together; "
              "/compact; file snapshots",
)
