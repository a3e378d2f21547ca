"""Cursor's chats: the ``cursor-agent`` CLI's ``store.db`` (one chat, a blob store: see
:mod:`~explorer.formats.cursor.agent_store`) and the editor's ``state.vscdb`` (many composer
chats: see :mod:`~explorer.formats.cursor.composer`). Both are databases Cursor rewrites in
place, so a sync asks :func:`read_changed` for only the chats that changed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.cursor.agent_store import chat_meta, read_store
from explorer.formats.cursor.composer import FORMAT, composer_marks, has_composers, read_composers
from explorer.formats.cursor.sql import connect, tables_at

__all__ = ["FORMAT", "read", "read_changed", "sniff"]

Changed = tuple[list[ImportedConversation], dict[str, Any]]


def _kind(path: Path) -> str | None:
    """``"store"`` for a cursor-agent chat, ``"state"`` for an editor database with
    composer chats, None for anything else."""
    if not path.is_file():
        return None
    tables = tables_at(path)
    if {"meta", "blobs"} <= tables:
        return "store"
    if "cursorDiskKV" in tables:
        try:
            with closing(connect(path)) as conn:
                return "state" if has_composers(conn) else None
        except sqlite3.Error:
            return None
    return None


def sniff(path: Path) -> bool:
    return _kind(path) is not None


def read(path: Path) -> Iterator[ImportedConversation]:
    kind = _kind(path)
    if kind == "store":
        conv = read_store(path)
        if not conv.messages:
            raise FormatError(f"{path.name}: a cursor-agent chat without any message")
        yield conv
    elif kind == "state":
        yield from read_composers(path)
    else:
        raise FormatError(f"{path.name}: not a Cursor chat database")


def read_changed(path: Path, since: dict[str, Any] | None) -> Changed | None:
    """The chats changed since ``since`` (all for None) and the new cursor: a cursor-agent
    chat changed when its root blob did, an editor chat when its update time or length did."""
    kind = _kind(path)
    try:
        if kind == "store":
            with closing(connect(path)) as conn:
                root = str(chat_meta(conn).get("latestRootBlobId"))
            old = since.get("root") if since else None
            return ([] if old == root else list(read(path))), {"root": root}
        if kind == "state":
            marks = composer_marks(path)
            before = since.get("chats") if since else None
            seen = before if isinstance(before, dict) else {}
            wanted = {c for c, mark in marks.items() if seen.get(c) != mark}
            return list(read_composers(path, wanted)), {"chats": marks}
    except sqlite3.Error as exc:
        raise FormatError(f"{path.name}: cannot be read as a Cursor database ({exc})") from exc
    return None
