"""A small ``opencode.db`` written the way OpenCode 1.2+ writes it (WAL, JSON ``data`` columns),
built here from the table definitions in OpenCode's ``session.sql.ts``; no real user data."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT,
  title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, summary_additions INTEGER,
  summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT,
  cost REAL NOT NULL DEFAULT 0, tokens_input INTEGER NOT NULL DEFAULT 0,
  tokens_output INTEGER NOT NULL DEFAULT 0, revert TEXT, permission TEXT, agent TEXT,
  model TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id TEXT PRIMARY KEY,
  message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  data TEXT NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
"""

T0 = 1_764_000_000_000  # ms, as OpenCode stores times
SESSION = "ses_4f1a2b3c4ffeAbCdEfGhIjKlMn"
CHILD = "ses_4f1a2b3c5ffeSubAgentTaskXy"
EMPTY = "ses_4f1a2b3c6ffeNothingHereYet"


def _user(mid: str, n: int) -> dict[str, Any]:
    return {"role": "user", "time": {"created": T0 + n}, "agent": "build",
            "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}


def _assistant(mid: str, parent: str, n: int, finish: str) -> dict[str, Any]:
    return {"role": "assistant", "time": {"created": T0 + n, "completed": T0 + n + 900},
            "parentID": parent, "modelID": "claude-sonnet-4-5", "providerID": "anthropic",
            "mode": "build", "agent": "build", "path": {"cwd": "/work/shop", "root": "/work/shop"},
            "cost": 0.0123, "finish": finish,
            "tokens": {"input": 1200, "output": 80, "reasoning": 0,
                       "cache": {"read": 300, "write": 0}}}


def make_db(path: Path) -> sqlite3.Connection:
    """Create the database with one session of two turns, a subagent session and an
    empty one; returns the open writing connection (OpenCode keeps it open)."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO project VALUES ('prj_1', '/work/shop', 'git', 'shop', ?, ?)",
                 (T0, T0))
    for sid, parent, title, n in ((SESSION, None, "Fix the failing checkout test", 0),
                                  (CHILD, SESSION, "Find the flaky test (@explore subagent)", 50),
                                  (EMPTY, None, "New session", 90)):
        conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
            "time_created, time_updated) VALUES (?, 'prj_1', ?, ?, '/work/shop', ?, '1.2.5', ?, ?)",
            (sid, parent, f"slug-{n}", title, T0 + n, T0 + n))
    add_message(conn, SESSION, "msg_a001", _user("msg_a001", 1), [
        {"type": "text", "text": "The checkout test fails on CI. Find out why."}])
    add_message(conn, SESSION, "msg_a002", _assistant("msg_a002", "msg_a001", 2, "tool-calls"), [
        {"type": "step-start"},
        {"type": "reasoning", "text": "Run the test first.", "time": {"start": T0, "end": T0}},
        {"type": "tool", "callID": "toolu_01", "tool": "bash", "state": {
            "status": "completed", "input": {"command": "npm test -- checkout"},
            "output": "1 failing: expected 3 items, got 2", "title": "npm test", "metadata": {},
            "time": {"start": T0, "end": T0 + 5}}},
        {"type": "text", "text": "The cart drops the last item."},
        {"type": "step-finish", "reason": "tool-calls", "cost": 0.0123,
         "tokens": {"input": 1200, "output": 80, "reasoning": 0,
                    "cache": {"read": 300, "write": 0}}}])
    add_message(conn, SESSION, "msg_a003", _user("msg_a003", 3), [
        {"type": "text", "text": "Fix it."}])
    add_message(conn, SESSION, "msg_a004", _assistant("msg_a004", "msg_a003", 4, "stop"), [
        {"type": "tool", "callID": "toolu_02", "tool": "edit", "state": {
            "status": "error", "input": {"filePath": "src/cart.ts"},
            "error": "File src/cart.ts has been modified since it was read",
            "time": {"start": T0, "end": T0 + 1}}},
        {"type": "text", "text": "The file changed under me; read it again first."}])
    conn.execute("INSERT INTO message VALUES ('msg_a005', ?, ?, ?, 'not json {')",
                 (SESSION, T0 + 5, T0 + 5))
    add_message(conn, CHILD, "msg_b001", _user("msg_b001", 51), [
        {"type": "text", "text": "Find tests that depend on timing."}])
    add_message(conn, CHILD, "msg_b002", _assistant("msg_b002", "msg_b001", 52, "stop"), [
        {"type": "text", "text": "checkout.test.ts waits 10 ms for the cart."}])
    conn.commit()
    return conn


def add_message(conn: sqlite3.Connection, session: str, mid: str, data: dict[str, Any],
                parts: list[dict[str, Any]]) -> None:
    created = int(data["time"]["created"])
    conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                 (mid, session, created, created, json.dumps(data)))
    for n, part in enumerate(parts):
        conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                     (f"prt_{mid[4:]}_{n:02d}", mid, session, created + n, created + n,
                      json.dumps(part)))
