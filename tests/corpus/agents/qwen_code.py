"""Qwen Code: its OpenAI-compatible auth pointed at the fake model, driven one-shot (``qwen``
with a positional prompt) and in ``--yolo`` so its shell and file tools run unasked.

One session answers in text, then runs shell, read, write and edit when continued with
``--continue``, and is resumed by id with ``--resume``; ``--fork-session`` copies it into a
session of its own; a last prompt starts a second session.
"""

from __future__ import annotations

from pathlib import Path

from tests.corpus.recipe import Recipe, Run


def _env(run: Run) -> dict[str, str]:
    return {"OPENAI_BASE_URL": f"{run.model_url}/v1", "OPENAI_API_KEY": "fake-key-not-secret",
            "OPENAI_MODEL": "fake-model", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}


def _chats(run: Run) -> dict[str, Path]:
    return {p.stem: p for p in (run.home / ".qwen" / "projects").glob("*/chats/*.jsonl")}


def _ask(run: Run, text: str, *more: str) -> None:
    run.call(["--auth-type", "openai", "--yolo", *more, text])


def _drive(run: Run) -> None:
    notes = run.work / "notes.txt"
    _ask(run, run.prompt("Say hello and tell me what this folder is for."))
    [session] = _chats(run)
    _ask(run, run.prompt(f"Look around.\nTOOL:bash:ls -1\nTOOL:read:{notes}\n"
                         f"TOOL:write:{run.work / 'todo.txt'}:buy milk\\nwalk dog\n"
                         f"TOOL:edit:{notes}:second line=>2nd line"), "--continue")
    _ask(run, run.prompt("Thanks, that is all."), "--resume", session)
    _ask(run, run.prompt("A copy of its own: what changed?"), "--resume", session,
         "--fork-session")
    _ask(run, run.prompt("A second session: count the lines.\nTOOL:bash:wc -l notes.txt"))


RECIPE = Recipe(
    name="qwen_code", tool="qwen-code", format="qwen_code", package="npm:@qwen-code/qwen-code",
    version="0.24.4", bin="qwen",
    drive=_drive, env=_env, collect=(".qwen/projects/*/chats/*.jsonl",),
    exercises="text answers; run_shell_command, read_file, write_file and edit calls with their "
              "results; continued with --continue and resumed by id; forked with "
              "--fork-session; a second session",
)
