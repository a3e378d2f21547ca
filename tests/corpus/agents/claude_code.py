"""Claude Code: ``ANTHROPIC_BASE_URL`` at the fake model, driven with ``claude -p``.

The session answers in text, runs Bash, Read, Write and Edit, is resumed by id, and is
then forked with ``--resume <id> --fork-session``: Claude Code writes the fork as a new
session file that repeats the original's messages (same uuids) before its own turn.
"""

from __future__ import annotations

import json

from tests.corpus.recipe import Recipe, Run

TOOLS = "Bash Read Write Edit"


def _env(run: Run) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": run.model_url, "ANTHROPIC_API_KEY": "fake-key-not-secret",
            "CLAUDE_CONFIG_DIR": str(run.home / ".claude"), "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1"}


def _ask(run: Run, text: str, *more: str) -> str:
    """One ``claude -p`` turn; the session id Claude Code reports for it."""
    out = run.call(["-p", "--output-format", "json", "--model", "claude-sonnet-4-5",
                    "--allowedTools", TOOLS, *more, "--", run.prompt(text)]).stdout
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


RECIPE = Recipe(
    name="claude_code", tool="claude-code", format="claude_code",
    package="npm:@anthropic-ai/claude-code", version="2.1.332", bin="claude",
    drive=_drive, env=_env, collect=(".claude/projects/**/*.jsonl",),
    exercises="text answer; Bash, Read, Write and Edit calls with their results; resumed "
              "twice by id; forked with --fork-session into a second session file",
)
