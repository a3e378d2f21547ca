"""OpenCode: an ``@ai-sdk/openai-compatible`` provider in ``opencode.json`` at the fake
model, driven with ``opencode run``.

One session answers in text, runs bash, read, write and edit, and is continued with
``--session``; ``--fork`` then continues a copy of it as a session of its own.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from tests.corpus.recipe import Recipe, Run


def _env(run: Run) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(run.home / ".config"),
            "XDG_DATA_HOME": str(run.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(run.home / ".cache"), "XDG_STATE_HOME": str(run.home / ".state"),
            "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1"}


def configure(run: Run, app: str, schema: str) -> None:
    """``<app>.json`` in ``<app>``'s config folder: the fake model as its only provider,
    every tool allowed (OpenCode and the agents built on it read the same settings)."""
    config = run.home / ".config" / app
    config.mkdir(parents=True)
    provider = {"npm": "@ai-sdk/openai-compatible", "name": "Local fake",
                "options": {"baseURL": f"{run.model_url}/v1", "apiKey": "fake-key-not-secret"},
                "models": {"fake-model": {"name": "Fake model", "tool_call": True}}}
    (config / f"{app}.json").write_text(json.dumps({
        "$schema": schema, "model": "localfake/fake-model",
        "small_model": "localfake/fake-model", "autoupdate": False, "share": "disabled",
        "permission": {"edit": "allow", "bash": "allow", "read": "allow",
                       "external_directory": "allow"},
        "provider": {"localfake": provider}}, indent=2))


def _setup(run: Run) -> None:
    configure(run, "opencode", "https://opencode.ai/config.json")


def sessions(run: Run) -> list[str]:
    out = run.call(["session", "list", "--format", "json"]).stdout
    return [str(s["id"]) for s in json.loads(out[out.index("["):])]


def ask(run: Run, text: str, *more: str) -> None:
    """One ``run`` turn, the prompt on stdin: ``run`` quotes a message argument that has a
    space, so only stdin reaches the model as the person typed it."""
    run.call(["run", "--model", "localfake/fake-model", *more], stdin=run.prompt(text),
             timeout=300)


def checkpoint(db: Path) -> None:
    """Fold the write-ahead log into the database and leave WAL mode: only the database
    file is kept, and a reader of a WAL database would leave ``-wal``/``-shm`` files beside
    it in the repository."""
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")


def _checkpoint(run: Run) -> None:
    checkpoint(run.home / ".local" / "share" / "opencode" / "opencode.db")


def _export(run: Run, session: str) -> None:
    """``opencode export`` of the first session, kept beside the database: the JSON file a
    person shares or imports by hand."""
    out = run.call(["export", session]).stdout
    dest = run.home / "exports" / f"{session}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(out[out.index("{"):])


def _drive(run: Run) -> None:
    ask(run, "Say hello and tell me what this folder is for.")
    [session] = sessions(run)
    ask(run, "Look around.\nTOOL:bash:ls -1\nTOOL:read:" + str(run.work / "notes.txt"),
         "--session", session)
    ask(run, "Write and then edit a file.\n"
         f"TOOL:write:{run.work / 'todo.txt'}:buy milk\\nwalk dog\n"
         f"TOOL:edit:{run.work / 'todo.txt'}:buy milk=>buy oat milk", "--continue")
    ask(run, "A copy of its own: count the lines.\nTOOL:bash:wc -l notes.txt",
         "--session", session, "--fork")
    _checkpoint(run)
    _export(run, session)


RECIPE = Recipe(
    name="opencode", tool="opencode", format="opencode", package="npm:opencode-ai",
    version="1.18.33", bin="opencode",
    drive=_drive, env=_env, setup=_setup,
    collect=(".local/share/opencode/opencode.db", ".local/share/opencode/storage/**/*",
             "exports/*.json"),
    exercises="text answer; bash, read, write and edit calls with their results; continued "
              "with --session and --continue; forked into a session of its own with --fork; "
              "the first session exported with opencode export",
)
