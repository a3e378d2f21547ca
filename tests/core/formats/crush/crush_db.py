"""A ``crush.db`` as Crush writes it: its migrations' schema, WAL, and parts JSON-wrapped.

The schema is Crush's own (``internal/db/migrations``, up to ``add_read_files_table``) and
the rows are what its session and message services insert: times in Unix seconds, each
message's ``parts`` a list of ``{"type", "data"}``, a title session ``title-<id>`` and a
sub-agent's session ``<message id>$$<tool call id>`` under their parent.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

T0 = 1_790_000_000
SESSION = "0b7d6f7e-5b0c-4d59-9a55-6e1b2c3d4e5f"
SUMMARY_SESSION = "5c1f0e2a-7d3b-4c8e-a6f9-1b2c3d4e5f60"
CHILD = "msg-a3$$call_task"
MODEL = "fake-model"

SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
    completion_tokens INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0),
    cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0),
    updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE files (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE,
    UNIQUE(path, session_id, version));
CREATE TABLE messages (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
    parts TEXT NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, finished_at INTEGER,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE);
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages
BEGIN UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
ALTER TABLE sessions ADD COLUMN summary_message_id TEXT;
ALTER TABLE messages ADD COLUMN provider TEXT;
ALTER TABLE messages ADD COLUMN is_summary_message INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE sessions ADD COLUMN todos TEXT;
CREATE TABLE read_files (
    session_id TEXT NOT NULL CHECK (session_id != ''), path TEXT NOT NULL CHECK (path != ''),
    read_at INTEGER NOT NULL, PRIMARY KEY (path, session_id));
"""


def part(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}


def text(words: str) -> dict[str, Any]:
    return part("text", text=words)


def call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return part("tool_call", id=call_id, name=name, input=json.dumps(args),
                provider_executed=False, finished=True)


def result(call_id: str, name: str, output: str, error: bool = False) -> dict[str, Any]:
    return part("tool_result", tool_call_id=call_id, name=name, content=output, data="",
                mime_type="", metadata="", is_error=error)


def done(reason: str = "end_turn", at: int = T0) -> dict[str, Any]:
    return part("finish", reason=reason, time=at)


def add_session(conn: sqlite3.Connection, sid: str, title: str, at: int,
                parent: str | None = None) -> None:
    conn.execute("INSERT INTO sessions (id, parent_session_id, title, prompt_tokens, "
                 "completion_tokens, cost, updated_at, created_at) VALUES (?, ?, ?, 120, 30, "
                 "0.01, ?, ?)", (sid, parent, title, at, at))


def add_message(conn: sqlite3.Connection, sid: str, mid: str, role: str,
                parts: list[Any], at: int, *, summary: bool = False) -> None:
    model = MODEL if role == "assistant" else None
    provider = "fake" if role == "assistant" else None
    conn.execute("INSERT INTO messages (id, session_id, role, parts, model, provider, "
                 "is_summary_message, created_at, updated_at, finished_at) VALUES "
                 "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (mid, sid, role, json.dumps(parts), model, provider, int(summary), at, at,
                  at if role == "assistant" else None))
    conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (at, sid))


def make_db(path: Path) -> sqlite3.Connection:
    """A database with a session of text, shell/view/write/edit calls, a sub-agent and a
    title session, and a second session continued after a summary; the writer stays open
    (its writes sit in the ``-wal`` until it closes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    add_session(conn, SESSION, "Look around the notes", T0)
    add_message(conn, SESSION, "msg-u1", "user", [text("Say hello.")], T0)
    add_message(conn, SESSION, "msg-a1", "assistant",
                [part("reasoning", thinking="A greeting.", signature="sig"),
                 text("Hello! (reply 1)"), done(at=T0 + 1)], T0 + 1)
    add_message(conn, SESSION, "msg-u2", "user", [text("Look around.\nTOOL:bash:ls -1")], T0 + 2)
    add_message(conn, SESSION, "msg-a2", "assistant",
                [text("Calling bash."), call("call_1", "bash", {"command": "ls -1"}),
                 done("tool_use")], T0 + 3)
    add_message(conn, SESSION, "msg-t2", "tool", [result("call_1", "bash", "notes.txt\n")],
                T0 + 3)
    add_message(conn, SESSION, "msg-a3", "assistant",
                [call("call_2", "view", {"file_path": "missing.txt"}),
                 call("call_task", "agent", {"prompt": "Count the notes"}), done("tool_use")],
                T0 + 4)
    add_message(conn, SESSION, "msg-t3", "tool",
                [result("call_2", "view", "file not found", error=True),
                 result("call_task", "agent", "2 notes")], T0 + 5)
    add_message(conn, SESSION, "msg-a4", "assistant",
                [call("call_3", "write", {"file_path": "plan.txt", "content": "step one"}),
                 done("tool_use")], T0 + 5)
    add_message(conn, SESSION, "msg-t4", "tool",
                [result("call_3", "write", "<result>File written</result>")], T0 + 5)
    add_message(conn, SESSION, "msg-a5", "assistant",
                [call("call_4", "edit", {"file_path": "plan.txt", "old_string": "one",
                                         "new_string": "1"}), done("tool_use")], T0 + 6)
    add_message(conn, SESSION, "msg-t5", "tool",
                [result("call_4", "edit", "<result>Edited</result>")], T0 + 6)
    add_message(conn, SESSION, "msg-a6", "assistant", [text("All done."), done()], T0 + 7)
    add_session(conn, CHILD, "Count the notes", T0 + 4, parent=SESSION)
    add_message(conn, CHILD, "msg-c1", "user", [text("Count the notes")], T0 + 4)
    add_message(conn, CHILD, "msg-c2", "assistant", [text("2 notes"), done()], T0 + 5)
    add_session(conn, f"title-{SESSION}", "Generate a title", T0, parent=SESSION)
    add_message(conn, f"title-{SESSION}", "msg-x1", "user", [text("Generate a title")], T0)
    add_message(conn, f"title-{SESSION}", "msg-x2", "assistant",
                [text("Look around the notes"), done()], T0)
    add_session(conn, SUMMARY_SESSION, "A long one", T0 + 100)
    add_message(conn, SUMMARY_SESSION, "msg-s1", "user", [text("Start the long one.")], T0 + 100)
    add_message(conn, SUMMARY_SESSION, "msg-s2", "assistant", [text("Started."), done()],
                T0 + 101)
    add_message(conn, SUMMARY_SESSION, "msg-s3", "assistant",
                [text("Summary: the long one was started."), done()], T0 + 102, summary=True)
    conn.execute("UPDATE sessions SET summary_message_id = 'msg-s3' WHERE id = ?",
                 (SUMMARY_SESSION,))
    add_message(conn, SUMMARY_SESSION, "msg-s4", "user", [text("Go on.")], T0 + 103)
    add_message(conn, SUMMARY_SESSION, "msg-s5", "assistant", [text("Going on."), done()],
                T0 + 104)
    conn.commit()
    return conn


def register(data: Path, project: Path, data_dir: Path | None = None) -> None:
    """Crush's ``projects.json`` naming ``project`` (its data folder ``data_dir``)."""
    data.mkdir(parents=True, exist_ok=True)
    entry = {"path": str(project), "data_dir": str(data_dir or project / ".crush"),
             "last_accessed": "2026-09-23T06:24:36Z"}
    (data / "projects.json").write_text(json.dumps({"projects": [entry]}, indent=2))
