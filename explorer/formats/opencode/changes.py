"""Reading only the OpenCode sessions that changed since the last sync (S1).

OpenCode keeps every session in one store, so an agent writing one session must
not make a sync read all of them again. The cursor says how far each table (or
file) was seen, and only the sessions with something newer are read (each whole,
merged by ids by the store):

* ``opencode.db``: per table (session, message, part) the newest ``rowid`` (rows
  added) and the newest ``time_updated`` with the ids of the rows that carry it
  (rows written over, also later in that same millisecond);
* the older storage folders: the newest file modification time (in nanoseconds); a
  changed file names its session by its folder (a part file by its message's folder).

:func:`read_changed` answers None when the path is neither (an export file): the
sync then reads it whole.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.opencode.convert import conversation
from explorer.formats.opencode.database import (
    _records,
    _rows,
    _session_info,
    is_database,
)
from explorer.formats.opencode.storage import Layout, find_layouts, layout_at, layout_conversations
from explorer.formats.session_db import changed_sessions, connect, newest

Changed = tuple[list[ImportedConversation], dict[str, Any]]
_SESSION_COLUMN = {"session": "id", "message": "session_id", "part": "session_id"}


def read_changed(path: Path, since: dict[str, Any] | None) -> Changed | None:
    """The sessions changed since ``since`` (all of them for None) and the new cursor."""
    if path.is_dir():
        layout = layout_at(path) or next(find_layouts(path), None)
        return _storage_changed(layout, since) if layout is not None else None
    if path.is_file() and is_database(path):
        return _database_changed(path, since)
    return None


def _database_changed(path: Path, since: dict[str, Any] | None) -> Changed:
    try:
        with closing(connect(path)) as conn:
            marks = {t: newest(conn, t, "time_updated") for t in _SESSION_COLUMN}
            wanted = None if since is None else changed_sessions(conn, since, _SESSION_COLUMN,
                                                               "time_updated")
            rows = _rows(conn, "session", "ORDER BY {time} id")
            convs = []
            for row in rows:
                if wanted is not None and str(row["id"]) not in wanted:
                    continue
                notes: list[str] = []
                conv = conversation(_session_info(row), _records(conn, str(row["id"]), notes),
                                    str(path), notes)
                if conv.messages:
                    convs.append(conv)
    except sqlite3.Error as exc:
        raise FormatError(f"{path.name}: cannot be read as an OpenCode database ({exc})") from exc
    return convs, {"tables": marks}


def _storage_changed(layout: Layout, since: dict[str, Any] | None) -> Changed:
    newest = 0
    changed: set[str] = set()
    after = since.get("mtime") if since is not None else None
    for file, mtime in _files(layout.root):
        newest = max(newest, mtime)
        if isinstance(after, int) and mtime > after:
            sid = _session_of(layout, file)
            if sid is not None:
                changed.add(sid)
    only = changed if isinstance(after, int) else None
    return list(layout_conversations(layout, only)), {"mtime": newest}


def _files(root: Path) -> Iterable[tuple[Path, int]]:
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            try:
                yield Path(path), os.stat(path).st_mtime_ns
            except OSError:
                continue


def _session_of(layout: Layout, file: Path) -> str | None:
    """The session a changed file belongs to, from where it lies."""
    parts = file.relative_to(layout.root).parts
    if layout.old:  # session/{info/<ses>.json, message/<ses>/…, part/<ses>/<msg>/…}
        if len(parts) >= 3 and parts[0] == "session":
            return file.stem if parts[1] == "info" else parts[2]
        return None
    if parts[0] == "session" and len(parts) == 3:
        return file.stem
    if parts[0] == "message" and len(parts) == 3:
        return parts[1]
    if parts[0] == "part" and len(parts) == 3:
        found = next((layout.root / "message").glob(f"*/{parts[1]}.json"), None)
        return found.parent.name if found is not None else None
    return None
