"""Kilo CLI (built on OpenCode): an ``@ai-sdk/openai-compatible`` provider in ``kilo.json``
at the fake model, driven with ``kilo run``.

The pinned 7.8.1 cannot be installed here (the registry holds no 7.8.1 of its platform
binary, ``@kilocode/cli-linux-x64``), so the newest version whose binary it holds is used.
One session answers in text and is continued with ``--session`` to run bash and read;
a second session counts lines.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

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
    config = run.home / ".config" / "kilo"
    config.mkdir(parents=True)
    provider = {"npm": "@ai-sdk/openai-compatible", "name": "Local fake",
                "options": {"baseURL": f"{run.model_url}/v1", "apiKey": "fake-key-not-secret"},
                "models": {"fake-model": {"name": "Fake model", "tool_call": True}}}
    (config / "kilo.json").write_text(json.dumps({
        "$schema": "https://app.kilo.ai/config.json", "model": "localfake/fake-model",
        "small_model": "localfake/fake-model", "autoupdate": False, "share": "disabled",
        "permission": {"edit": "allow", "bash": "allow", "read": "allow",
                       "external_directory": "allow"},
        "provider": {"localfake": provider}}, indent=2))


def _sessions(run: Run) -> list[str]:
    out = run.call(["session", "list", "--format", "json"]).stdout
    return [str(s["id"]) for s in json.loads(out[out.index("["):])]


def _ask(run: Run, text: str, *more: str) -> None:
    """One ``kilo run`` turn, the prompt on stdin: ``run`` quotes a message argument that
    has a space, so only stdin reaches the model as the person typed it."""
    run.call(["run", "--model", "localfake/fake-model", *more], stdin=run.prompt(text),
             timeout=300)


def _checkpoint(run: Run) -> None:
    """Fold the write-ahead log into ``kilo.db`` and leave WAL mode, so only the database
    file is kept."""
    db = run.home / ".local" / "share" / "kilo" / "kilo.db"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")


def _drive(run: Run) -> None:
    _ask(run, "Say hello and tell me what this folder is for.")
    [session] = _sessions(run)
    _ask(run, "Look around.\nTOOL:bash:ls -1\nTOOL:read:" + str(run.work / "notes.txt"),
         "--session", session)
    _ask(run, "A second session: count the lines.\nTOOL:bash:wc -l notes.txt")
    _checkpoint(run)


RECIPE = Recipe(
    name="kilo_code", tool="kilo-cli", format="opencode", package="npm:@kilocode/cli",
    version="7.7.7", bin="kilo",
    drive=_drive, env=_env, setup=_setup, collect=(".local/share/kilo/kilo.db",),
    exercises="two sessions in kilo.db; a text answer continued with --session; bash and "
              "read calls with their results",
)
