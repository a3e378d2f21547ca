"""Every conversation's list fields as columns: what the window's list shows and groups by.

An archive holds tens of thousands of conversations. A :class:`~explorer.store.reads.
Conversation` each (its metadata parsed from JSON) costs a quarter of a second and tens of
megabytes at 25,000; the list needs a few fields, read here in one pass into parallel
columns (numbers in arrays), newest first as the list shows them.
"""

from __future__ import annotations

import os
import sqlite3
from array import array
from dataclasses import dataclass, field

# The project folder a session ran in, as the agents record it (meta's cwd); a malformed
# meta reads as none rather than failing the whole list.
_CWD = "CASE WHEN json_valid(c.meta) THEN json_extract(c.meta, '$.cwd') END"

BATCH = 2048
_QUERY = (
    "SELECT c.id, c.title, coalesce(c.updated_at, c.created_at, 0), c.message_count, "
    f"c.source_format, coalesce(c.forked_from_conversation_id, 0), {_CWD}, "
    f"CASE WHEN {_CWD} IS NULL THEN c.source_path END "
    "FROM conversations c ORDER BY 3 DESC, c.id DESC"
)


@dataclass
class ConversationColumns:
    """Row ``i`` of every column is the ``i``-th conversation, newest first (ties: higher id
    first)."""

    ids: array[int] = field(default_factory=lambda: array("q"))
    titles: list[str] = field(default_factory=list)
    updated: array[float] = field(default_factory=lambda: array("d"))  # updated, else created
    counts: array[int] = field(default_factory=lambda: array("q"))
    formats: list[str] = field(default_factory=list)  # "" when unknown
    forked_from: array[int] = field(default_factory=lambda: array("q"))  # 0: not a fork
    folders: list[str] = field(default_factory=list)  # "" when nothing says where

    def __len__(self) -> int:
        return len(self.ids)


def folder_of(cwd: object, source_path: str | None) -> str:
    """Where a conversation belongs: the folder the session ran in, else the folder its file
    was read from (an export's, a session store's), else nowhere."""
    if isinstance(cwd, str) and cwd.strip():
        return cwd.rstrip("/\\") or cwd
    if source_path:
        return os.path.dirname(source_path)
    return ""


def read_columns(conn: sqlite3.Connection) -> ConversationColumns:
    """Every conversation's columns, read a few thousand rows at a time (the rows of one
    batch are let go before the next: a 25,000-row read peaks 6 MB lower, and is quicker)."""
    out = ConversationColumns()
    shared: dict[str, str] = {}  # one string per folder, however many sessions ran there
    kinds: dict[str | None, str] = {}
    cursor = conn.execute(_QUERY)
    while batch := cursor.fetchmany(BATCH):
        ids, titles, updated, counts, formats, forked, cwds, paths = zip(*batch, strict=True)
        out.ids.extend(ids)
        out.titles.extend(titles)
        out.updated.extend(updated)
        out.counts.extend(counts)
        out.formats.extend(kinds.setdefault(f, f or "") for f in formats)
        out.forked_from.extend(forked)
        out.folders.extend(shared.setdefault(f, f) for f in map(folder_of, cwds, paths))
    return out
