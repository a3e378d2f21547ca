"""Gemini CLI: ``GOOGLE_GEMINI_BASE_URL`` at the fake model with an API key, driven with
``gemini -p``.

One session answers in text, runs run_shell_command, read_file, write_file and replace,
and is resumed twice with ``--resume``. Gemini CLI branches only from its interactive
``/rewind`` and ``/resume save``, so the recording has no branch.
"""

from __future__ import annotations

import json

from tests.corpus.recipe import Recipe, Run


def _env(run: Run) -> dict[str, str]:
    return {"GOOGLE_GEMINI_BASE_URL": run.model_url, "GEMINI_API_KEY": "fake-key-not-secret",
            "GEMINI_CLI_NO_RELAUNCH": "true"}


def _setup(run: Run) -> None:
    home = run.home / ".gemini"
    home.mkdir()
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"},
                             "folderTrust": {"enabled": False}},
                "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False}}
    (home / "settings.json").write_text(json.dumps(settings, indent=2))


def _ask(run: Run, text: str, *more: str) -> str:
    """One headless turn; the session id Gemini CLI reports for it."""
    out = run.call(["-m", "gemini-2.5-flash", "--approval-mode", "yolo", "-o", "json", *more,
                    "-p", run.prompt(text)]).stdout
    return str(json.loads(out[out.index("{"):])["session_id"])


def _drive(run: Run) -> None:
    session = _ask(run, "Say hello and tell me what this folder is for.")
    _ask(run, "Look around.\nTOOL:bash:ls -1\nTOOL:read:" + str(run.work / "notes.txt"),
         "--resume", session)
    _ask(run, "Write and then edit a file.\n"
         f"TOOL:write:{run.work / 'todo.txt'}:buy milk\\nwalk dog\n"
         f"TOOL:edit:{run.work / 'todo.txt'}:buy milk=>buy oat milk", "--resume", session)


RECIPE = Recipe(
    name="gemini_cli", tool="gemini-cli", format="gemini_cli", package="npm:@google/gemini-cli",
    version="0.61.0", bin="gemini",
    drive=_drive, env=_env, setup=_setup, collect=(".gemini/tmp/*/chats/*",),
    exercises="text answer; run_shell_command, read_file, write_file and replace calls with "
              "their results; resumed twice by session id",
)
