"""Kilo CLI (built on OpenCode): an ``@ai-sdk/openai-compatible`` provider in ``kilo.json``
at the fake model, driven with ``kilo run``.

The pinned 7.8.1 cannot be installed here (the registry holds no 7.8.1 of its platform
binary, ``@kilocode/cli-linux-x64``), so the newest version whose binary it holds is used.
One session answers in text and is continued with ``--session`` to run bash and read;
a second session counts lines.
"""

from __future__ import annotations

from tests.corpus.agents.opencode import ask, checkpoint, configure, sessions
from tests.corpus.recipe import Recipe, Run


def _env(run: Run) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(run.home / ".config"),
            "XDG_DATA_HOME": str(run.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(run.home / ".cache"), "XDG_STATE_HOME": str(run.home / ".state"),
            "KILO_DISABLE_AUTOUPDATE": "1", "KILO_DISABLE_MODELS_FETCH": "1",
            "KILO_DISABLE_SHARE": "1", "KILO_DISABLE_LSP_DOWNLOAD": "1",
            "KILO_DISABLE_CLAUDE_CODE": "1", "KILO_DISABLE_DEFAULT_PLUGINS": "1",
            "KILO_DISABLE_SESSION_INGEST": "1", "KILO_NO_DAEMON": "1",
            "KILO_TELEMETRY_LEVEL": "off"}


def _setup(run: Run) -> None:
    configure(run, "kilo", "https://app.kilo.ai/config.json")


def _drive(run: Run) -> None:
    ask(run, "Say hello and tell me what this folder is for.")
    [session] = sessions(run)
    ask(run, "Look around.\nTOOL:bash:ls -1\nTOOL:read:" + str(run.work / "notes.txt"),
         "--session", session)
    ask(run, "A second session: count the lines.\nTOOL:bash:wc -l notes.txt")
    checkpoint(run.home / ".local" / "share" / "kilo" / "kilo.db")


RECIPE = Recipe(
    name="kilo_code", tool="kilo-cli", format="opencode", package="npm:@kilocode/cli",
    version="7.7.7", bin="kilo",
    drive=_drive, env=_env, setup=_setup, collect=(".local/share/kilo/kilo.db",),
    exercises="two sessions in kilo.db; a text answer continued with --session; bash and "
              "read calls with their results",
)
