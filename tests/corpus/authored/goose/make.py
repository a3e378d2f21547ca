"""Write Goose's two session stores as Goose lays them out: ``python -m
tests.corpus.authored.goose.make``.

Goose is a Rust binary that no package registry reachable here ships (PyPI's ``goose-ai``
is an unrelated package), so these are authored from Goose's own code
(``crates/goose/src/session``): an older ``<id>.jsonl`` session (metadata line, then one
``Message`` per line) and a ``sessions.db`` (``sessions`` and ``messages`` with
``content_json``, schema 13), with the manifest that says so.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORK = "/tmp/convo-corpus/goose/work"
PROMPTS = {"jsonl": ["Look around.\nTOOL:bash:ls -1"],
           "db": ["Read the notes.\nTOOL:read:notes.txt", "Thanks, that is all."]}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "toolRequest", "id": cid,
            "toolCall": {"status": "success", "value": {"name": name, "arguments": args}}}


def _result(cid: str, text: str) -> dict[str, Any]:
    return {"type": "toolResponse", "id": cid,
            "toolResult": {"status": "success", "value": [_text(text)]}}


def jsonl_session(path: Path) -> None:
    meta = {"working_dir": WORK, "description": "Look around", "schedule_id": None,
            "message_count": 4, "total_tokens": 2100, "input_tokens": 2000, "output_tokens": 100}
    messages = [
        {"role": "user", "created": 1796400000, "content": [_text(PROMPTS["jsonl"][0])]},
        {"role": "assistant", "created": 1796400002, "content": [
            {"type": "thinking", "thinking": "A listing.", "signature": "sig"},
            _text("Listing the folder."),
            _call("toolu_g1", "developer__shell", {"command": "ls -1"})]},
        {"role": "user", "created": 1796400003, "content": [_result("toolu_g1", "notes.txt")]},
        {"role": "assistant", "created": 1796400004, "content": [_text("It holds notes.txt.")]},
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(v) + "\n" for v in [meta, *messages]))


def database(path: Path) -> None:
    sid = "20261204_2"
    rows = [
        ("user", [_text(PROMPTS["db"][0])]),
        ("assistant", [_call("toolu_g2", "developer__text_editor",
                             {"command": "view", "path": f"{WORK}/notes.txt"})]),
        ("user", [_result("toolu_g2", "first line of the notes\nsecond line\n")]),
        ("assistant", [_text("The notes have two lines.")]),
        ("user", [_text(PROMPTS["db"][1])]),
        ("assistant", [_text("You are welcome.")]),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.executescript("""
            CREATE TABLE schema_version (version INTEGER PRIMARY KEY,
                applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
            CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '',
                working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
                total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
                schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT,
                name TEXT DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
                session_type TEXT NOT NULL DEFAULT 'user', provider_name TEXT,
                model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto', thread_id TEXT,
                archived_at TIMESTAMP, project_id TEXT, accumulated_cost REAL);
            CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT,
                session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
                content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
                timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER,
                metadata_json TEXT, message_id TEXT);
        """)
        db.executemany("INSERT INTO schema_version (version) VALUES (?)",
                       [(v,) for v in range(1, 14)])
        db.execute("INSERT INTO sessions (id, description, working_dir, created_at, updated_at, "
                   "name, provider_name, model_config_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (sid, "", WORK, "2026-12-04 10:00:00", "2026-12-04 10:01:05", "Read the notes",
                    "anthropic", json.dumps({"model_name": "claude-sonnet-4"})))
        for n, (role, content) in enumerate(rows, 1):
            db.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp, "
                       "metadata_json, message_id) VALUES (?, ?, ?, ?, ?, ?)",
                       (sid, role, json.dumps(content), 1796378400 + n * 10,
                        json.dumps({"userVisible": True, "agentVisible": True}),
                        f"msg_{sid}_{n}"))
    db.close()


def main() -> None:
    home = HERE / "home"
    shutil.rmtree(home, ignore_errors=True)
    sessions = home / ".local" / "share" / "goose" / "sessions"
    jsonl_session(sessions / "20261204_1.jsonl")
    database(sessions / "sessions.db")
    manifest = {
        "authored": "written by make.py from Goose's own session code (the JSON Lines "
                    "writer before 1.10, sessions.db schema 13 after); not recorded: Goose "
                    "ships as a binary no reachable registry has",
        "client": "goose (block/goose, not installable here)",
        "sources": [{"tool": "goose", "format": "goose",
                     "prompts": PROMPTS["jsonl"] + PROMPTS["db"]}],
        "exercises": "a JSON Lines session with thinking, a shell call and its result in a "
                     "user message; a sessions.db session with a named title, a text_editor "
                     "view call and its result, and a second prompt",
        "files": sorted(str(p.relative_to(HERE)) for p in home.rglob("*") if p.is_file()),
    }
    (HERE / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
