"""OpenCode 1.2+ keeps its sessions in one SQLite file, ``opencode.db``.

The tables are OpenCode's own (``packages/opencode/src/session/session.sql.ts``):
``session`` (id, parent_id, slug, directory, title, version, time_created, ...),
``message`` (id, session_id, time_created, data) and ``part`` (id, message_id,
session_id, time_created, data), where ``data`` is the JSON OpenCode wrote to
its per-file storage before 1.2, minus the ids the columns now hold. So each
row is given its ids back and handed to the same converter as the storage
folders (:mod:`explorer.formats.opencode.convert`): one conversation per session.

The file is opened read-only (OpenCode may be writing it: it uses WAL), columns
are found by name (later versions add and drop some), and a row whose JSON does
not parse is named in a note and skipped.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.opencode.convert import conversation
from explorer.formats.session_db import columns, connect, has_tables

TABLES = {"session": {"id", "title"}, "message": {"id", "session_id", "data"},
          "part": {"id", "message_id", "data"}}
_SESSION_FIELDS = (("slug", "slug"), ("directory", "directory"), ("version", "version"),
                   ("project_id", "projectID"), ("parent_id", "parentID"))


def is_database(path: Path) -> bool:
    """An SQLite file with OpenCode's session, message and part tables."""
    return has_tables(path, TABLES)


def read_database(path: Path) -> Iterator[ImportedConversation]:
    """Every session with at least one message, oldest first."""
    try:
        conn = connect(path)
    except sqlite3.Error as exc:
        raise FormatError(f"{path.name}: cannot open as SQLite ({exc})") from exc
    with closing(conn):
        try:
            sessions = _rows(conn, "session", "ORDER BY {time} id")
        except sqlite3.DatabaseError as exc:
            raise FormatError(f"{path.name}: a damaged OpenCode database ({exc})") from exc
        for session in sessions:
            notes: list[str] = []
            info = _session_info(session)
            conv = conversation(info, _records(conn, str(session["id"]), notes), str(path), notes)
            if conv.messages:
                yield conv


def _rows(conn: sqlite3.Connection, table: str, order: str, where: str = "",
          args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
    time = "time_created, " if "time_created" in columns(conn, table) else ""
    sql = f"SELECT * FROM {table} {where} {order.format(time=time)}"
    return list(conn.execute(sql, args))


def _session_info(row: sqlite3.Row) -> dict[str, Any]:
    """The session row as the ``info`` object OpenCode's storage files held."""
    keys = set(row.keys())
    info: dict[str, Any] = {"id": row["id"], "title": row["title"]}
    for column, name in _SESSION_FIELDS:
        if column in keys and row[column] is not None:
            info[name] = row[column]
    times = {name: row[column] for column, name in (("time_created", "created"),
                                                    ("time_updated", "updated"))
             if column in keys and row[column] is not None}
    if times:
        info["time"] = times
    return info


def _records(conn: sqlite3.Connection, session_id: str,
             notes: list[str]) -> list[tuple[dict[str, Any], list[Any]]]:
    """The session's messages in time order, each with its parts in id order."""
    parts: dict[str, list[Any]] = {}
    for row in _rows(conn, "part", "ORDER BY message_id, id", "WHERE session_id = ?",
                     (session_id,)):
        data = _data(row, "part", notes)
        if data is not None:
            data.update(id=row["id"], messageID=row["message_id"], sessionID=session_id)
            parts.setdefault(str(row["message_id"]), []).append(data)
    out: list[tuple[dict[str, Any], list[Any]]] = []
    for row in _rows(conn, "message", "ORDER BY {time} id", "WHERE session_id = ?",
                     (session_id,)):
        data = _data(row, "message", notes)
        if data is not None:
            data.update(id=row["id"], sessionID=session_id)
            out.append((data, parts.get(str(row["id"]), [])))
    return out


def _data(row: sqlite3.Row, table: str, notes: list[str]) -> dict[str, Any] | None:
    try:
        value = json.loads(row["data"])
    except (TypeError, ValueError, RecursionError):
        notes.append(f"{table} {row['id']}: its data is not JSON; skipped")
        return None
    if not isinstance(value, dict):
        notes.append(f"{table} {row['id']}: its data is not a JSON object; skipped")
        return None
    return value
