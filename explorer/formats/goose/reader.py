"""Goose sessions: ``~/.local/share/goose/sessions/`` as ``<id>.jsonl`` files (before 1.10)
or one ``sessions.db`` (from 1.10).

A JSON Lines session opens with a metadata line (``working_dir``, ``description``, token
counts; no ``role``), then one message per line; Goose writes the file whole each time,
so it is read whole. The database has a ``sessions`` table (``id``, ``name`` or
``description``, ``working_dir``, ``created_at``) and ``messages`` (``session_id``,
``role``, ``content_json``, ``created_timestamp``, from schema 7 ``message_id``), read
in row order; a sync reads only the sessions with rows added or renamed since the last.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.goose.content import message_role, parts_of
from explorer.formats.jsonl import JsonlReader, peek_objects, skipped_notes
from explorer.tree.model import Message

FORMAT = "goose"
SQLITE_MAGIC = b"SQLite format 3\x00"
Changed = tuple[list[ImportedConversation], dict[str, Any]]


def _is_database(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            if handle.read(16) != SQLITE_MAGIC:
                return False
        with closing(_connect(path)) as conn:
            return {"content_json", "session_id", "role"} <= _columns(conn, "messages") and \
                "working_dir" in _columns(conn, "sessions")
    except (OSError, sqlite3.Error):
        return False


def sniff(path: Path) -> bool:
    if not path.is_file():
        return False
    if _is_database(path):
        return True
    heads = peek_objects(path, max_objects=2)
    head = heads[0] if heads else None
    return isinstance(head, dict) and "working_dir" in head and "role" not in head and (
        "description" in head or "message_count" in head)


def read(path: Path) -> Iterator[ImportedConversation]:
    if _is_database(path):
        yield from _read_database(path, None)
        return
    reader = JsonlReader(path)
    lines = iter(reader)
    first = next(lines, None)
    if first is None or "working_dir" not in first[1]:
        raise FormatError(f"{path.name}: not a Goose session (no metadata line)")
    conv = _conversation(first[1], path.stem, str(path), (
        (as_text(raw.get("id")) or f"line{n}", raw) for n, raw in lines))
    conv.notes[:0] = skipped_notes(reader.skipped)
    if not conv.messages:
        raise FormatError(f"{path.name}: a Goose session without any message")
    yield conv


def read_changed(path: Path, since: dict[str, Any] | None) -> Changed | None:
    """For ``sessions.db``: the sessions changed since ``since`` (all for None); None for a
    JSON Lines session, which a sync reads whole."""
    if not _is_database(path):
        return None
    try:
        with closing(_connect(path)) as conn:
            top = conn.execute("SELECT max(rowid) FROM messages").fetchone()[0]
            names = {str(r[0]): str(r[1:]) for r in conn.execute(
                f"SELECT id, {_name_column(conn)}, updated_at FROM sessions")}
            wanted: set[str] | None = None
            if since is not None:
                old = since.get("rowid") if isinstance(since.get("rowid"), int) else -1
                wanted = {str(r[0]) for r in conn.execute(
                    "SELECT DISTINCT session_id FROM messages WHERE rowid > ?", (old,))}
                seen = since.get("sessions")
                marks = seen if isinstance(seen, dict) else {}
                wanted |= {s for s, mark in names.items() if marks.get(s) != mark}
    except sqlite3.Error as exc:
        raise FormatError(f"{path.name}: cannot be read as a Goose database ({exc})") from exc
    return list(_read_database(path, wanted)), {"rowid": top, "sessions": names}


def _read_database(path: Path, only: set[str] | None) -> Iterator[ImportedConversation]:
    try:
        conn = _connect(path)
    except sqlite3.Error as exc:
        raise FormatError(f"{path.name}: cannot open as SQLite ({exc})") from exc
    with closing(conn):
        try:
            sessions = list(conn.execute("SELECT * FROM sessions ORDER BY created_at, id"))
            for row in sessions:
                sid = str(row["id"])
                if only is not None and sid not in only:
                    continue
                conv = _conversation(dict(row), sid, str(path), _rows(conn, sid))
                if conv.messages:
                    yield conv
        except sqlite3.DatabaseError as exc:
            raise FormatError(f"{path.name}: a damaged Goose database ({exc})") from exc


def _rows(conn: sqlite3.Connection, sid: str) -> Iterator[tuple[str, dict[str, Any]]]:
    has_id = "message_id" in _columns(conn, "messages")
    for row in conn.execute("SELECT * FROM messages WHERE session_id = ? ORDER BY rowid", (sid,)):
        key = (as_text(row["message_id"]) if has_id else "") or f"msg_{sid}_{row['id']}"
        try:
            content = json.loads(row["content_json"])
        except (TypeError, ValueError, RecursionError):
            content = {"damaged": True}
        yield key, {"role": row["role"], "created": row["created_timestamp"],
                    "content": content}


def _conversation(info: dict[str, Any], sid: str, source: str,
                  records: Iterable[tuple[str, dict[str, Any]]]) -> ImportedConversation:
    conv = ImportedConversation(title="", source_format=FORMAT, messages=[], source_id=sid,
                                source_path=source, created_at=parse_time(info.get("created_at")))
    conv.meta["agent"] = FORMAT
    for key in ("working_dir", "provider_name", "schedule_id", "session_type"):
        if isinstance(info.get(key), str) and info[key]:
            conv.meta[key] = info[key]
    config = _json(info.get("model_config_json"))
    model = as_text(config.get("model_name")) if isinstance(config, dict) else ""
    last: str | None = None
    for key, raw in records:
        content = raw.get("content")
        if not isinstance(content, list):
            conv.notes.append(f"message {key}: its content is not a list; skipped")
            continue
        role = message_role(raw.get("role"), content)
        if role is None:
            conv.ignored_records[f"role:{raw.get('role')}"] += 1
            continue
        parts = parts_of(content, f"message {key}", conv.notes, conv.ignored_records)
        if not parts:
            conv.ignored_records[f"empty {role} message"] += 1
            continue
        conv.messages.append(Message(key, last, role, parts, parse_time(raw.get("created")),
                                     (model or None) if role == "assistant" else None,
                                     source_id=key))
        last = key
    name = as_text(info.get("name")) or as_text(info.get("description"))
    conv.title = name.strip()[:80] or preview_title(conv.messages, sid)
    return finish(conv, last)


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}


def _name_column(conn: sqlite3.Connection) -> str:
    return "name" if "name" in _columns(conn, "sessions") else "description"


def _json(value: Any) -> Any:
    try:
        return json.loads(value) if isinstance(value, str) else None
    except (ValueError, RecursionError):
        return None
