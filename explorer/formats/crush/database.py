"""Crush keeps a project's sessions in one SQLite file, ``<data folder>/crush.db``.

The tables are Crush's own (``internal/db/migrations``): ``sessions`` (id,
parent_session_id, title, prompt_tokens, completion_tokens, cost, summary_message_id,
created_at, updated_at, ...) and ``messages`` (id, session_id, role, parts, model,
provider, is_summary_message, created_at, updated_at, finished_at), where ``parts`` is a
JSON list of ``{"type", "data"}`` (see :mod:`explorer.formats.crush.convert`). Times are
Unix seconds, set by SQLite's ``strftime('%s', 'now')``.

The file is opened read-only (Crush writes it through a ``-wal`` file while it runs), and
columns are found by name, so an older file without the later columns still reads.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from explorer.formats.session_db import columns, has_tables

TABLES = {"sessions": {"id", "title", "parent_session_id"},
          "messages": {"id", "session_id", "role", "parts"}}


def is_database(path: Path) -> bool:
    """An SQLite file with Crush's sessions and messages tables."""
    return has_tables(path, TABLES)


def sessions(conn: sqlite3.Connection, only: set[str] | None = None) -> list[sqlite3.Row]:
    """Every session (those in ``only`` when given), oldest first."""
    order = "ORDER BY created_at, rowid" if "created_at" in columns(conn, "sessions") else (
        "ORDER BY rowid")
    rows = list(conn.execute(f"SELECT * FROM sessions {order}"))
    return rows if only is None else [r for r in rows if str(r["id"]) in only]


def messages(conn: sqlite3.Connection, session_id: str) -> list[sqlite3.Row]:
    """The session's messages in the order Crush lists them (creation time, then rowid)."""
    order = "ORDER BY created_at, rowid" if "created_at" in columns(conn, "messages") else (
        "ORDER BY rowid")
    return list(conn.execute(f"SELECT * FROM messages WHERE session_id = ? {order}",
                             (session_id,)))


def value(row: sqlite3.Row, column: str) -> Any:
    """The row's ``column``, or None when this file's table has no such column."""
    return row[column] if column in row.keys() else None  # noqa: SIM118 (`in` a Row reads its values)
