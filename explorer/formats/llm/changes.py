"""Reading only the llm conversations that changed since the last sync (S1).

llm logs every prompt into one ``logs.db``; a sync after a new prompt must not read
every conversation again. The cursor keeps the newest ``rowid`` of ``responses`` and
of the message store's tables. When only ``responses`` grew, the conversations of
the new rows are read (each whole, merged by ids by the store); when the message
store changed too, its trees are read again with the rest (they are one connected
read), which is still what a whole read does.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text
from explorer.formats.llm.reader import _classic_conversations, read
from explorer.formats.llm.sql import connect, tables_of

Changed = tuple[list[ImportedConversation], dict[str, Any]]
_STORE = ("messages", "parts", "threads", "turns")


def read_changed(path: Path, since: dict[str, Any] | None) -> Changed | None:
    """The conversations changed since ``since`` (all of them for None) and the new cursor."""
    try:
        with closing(connect(path)) as conn:
            tables = tables_of(conn)
            marks = {t: _newest(conn, t) for t in ("responses", *_STORE) if t in tables}
            if since is None or any(marks.get(t) != _mark(since, t) for t in _STORE) or (
                    "responses" not in tables):
                return list(read(path)), {"rowids": marks}
            old = _mark(since, "responses")
            rows = conn.execute("SELECT DISTINCT conversation_id, id, rowid FROM responses "
                                "WHERE rowid > ?", (old if isinstance(old, int) else -1,))
            found = [c for c, _i, _r in rows]
            wanted = None if None in found else {as_text(c) for c in found}
            convs = list(_classic_conversations(conn, tables, set(), path, wanted))
    except sqlite3.Error as exc:
        raise FormatError(f"{path.name}: unreadable llm database ({exc})") from exc
    return convs, {"rowids": marks}


def _newest(conn: sqlite3.Connection, table: str) -> int | None:
    value = conn.execute(f'SELECT max(rowid) FROM "{table}"').fetchone()[0]
    return int(value) if value is not None else None


def _mark(since: dict[str, Any], table: str) -> object:
    marks = since.get("rowids")
    return marks.get(table) if isinstance(marks, dict) else None
