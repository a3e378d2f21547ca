"""Reading a ``crush.db``: every session, or those changed since a cursor (S1).

Title sessions (``title-<parent>``, the small model asked to name a session) are Crush's
own bookkeeping and become no conversation; each is counted on its parent. A sub-agent's
session (``parent_session_id`` set) is a conversation of its own, named after its parent
and linked to it by ``parent_session``.

Crush writes every session of a project into one file, so a sync after one new turn must
not read all of them again: the cursor keeps, per table, the newest ``rowid`` (rows
added) and the newest ``updated_at`` with the ids of the rows that carry it (rows written
over later in that same second), and only the sessions with something newer are read
(each whole, merged by ids by the store).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text
from explorer.formats.crush.convert import conversation
from explorer.formats.crush.database import is_database, messages, sessions
from explorer.formats.session_db import changed_sessions, connect, newest

Changed = tuple[list[ImportedConversation], dict[str, Any]]
_SESSION_COLUMN = {"sessions": "id", "messages": "session_id"}
TITLE_PREFIX = "title-"


def sniff(path: Path) -> bool:
    return path.is_file() and is_database(path)


def read(path: Path) -> Iterator[ImportedConversation]:
    found = read_changed(path, None)
    yield from found[0] if found is not None else []


def read_changed(path: Path, since: dict[str, Any] | None) -> Changed | None:
    """The sessions changed since ``since`` (all of them for None) and the new cursor."""
    if not is_database(path):
        raise FormatError(f"{path.name}: not a Crush database (no sessions and messages tables)")
    try:
        with closing(connect(path)) as conn:
            marks = {t: newest(conn, t, "updated_at") for t in _SESSION_COLUMN}
            wanted = None if since is None else changed_sessions(conn, since, _SESSION_COLUMN,
                                                               "updated_at")
            convs = list(_conversations(conn, path, wanted))
    except sqlite3.Error as exc:
        raise FormatError(f"{path.name}: cannot be read as a Crush database ({exc})") from exc
    return convs, {"tables": marks}


def _conversations(conn: sqlite3.Connection, path: Path,
                   wanted: set[str] | None) -> Iterator[ImportedConversation]:
    rows = sessions(conn)
    titles = {str(r["id"]): as_text(r["title"]).strip() for r in rows}
    cwd = str(path.parent.parent) if path.parent.name == ".crush" else None
    naming = {str(r["parent_session_id"]) for r in rows if _is_title(r)}
    for row in rows:
        sid = str(row["id"])
        if _is_title(row) or (wanted is not None and sid not in wanted and not (
                sid in naming and f"{TITLE_PREFIX}{sid}" in wanted)):
            continue
        parent = as_text(row["parent_session_id"]) or None
        conv = conversation(row, messages(conn, sid), str(path), cwd,
                            (titles.get(parent) or parent) if parent else None)
        if sid in naming:
            conv.ignored_records["session:title"] += 1
        if conv.messages:
            yield conv


def _is_title(row: sqlite3.Row) -> bool:
    sid, parent = str(row["id"]), as_text(row["parent_session_id"])
    return bool(parent) and sid == f"{TITLE_PREFIX}{parent}"


