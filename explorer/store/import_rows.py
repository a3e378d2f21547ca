"""A conversation's new messages written as rows, a chunk at a time, parents first.

Used by an import (:func:`explorer.store.import_writes.insert_imported`) and a sync's
merge (:mod:`explorer.store.sync_writes`). A lazily read conversation
holds the content of one chunk only, and no write builds the rows of a whole session at
once; rows made where the file was read (another process) only gain their ids here.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from explorer.store.rows import counted_in_bulk, insert_rows, message_row, part_rows
from explorer.tree import imported
from explorer.tree.imported import ImportedConversation, ReadyRows, RowsOnly
from explorer.tree.model import Message


def write_messages(
    conn: sqlite3.Connection, conv_id: int, fresh: list[Message],
    ids: Mapping[Hashable, int], db_id: Mapping[Hashable, int], ic: ImportedConversation,
    *, ordered: bool = False,
) -> None:
    """Rows for ``fresh``, written a chunk at a time: a lazily read conversation holds the
    content of one chunk only, and no write builds the rows of a whole session at once.
    ``ordered``: every parent is known to come before its children."""
    # Parents must exist before children for the foreign key: write in tree order.
    if not ordered and not _parents_first(fresh, ids):
        pairs = [(ids[m.id], db_id[m.parent_id] if m.parent_id is not None else None)
                 for m in fresh]
        order = {mid: i for i, mid in enumerate(_topological(pairs))}
        fresh = sorted(fresh, key=lambda m: order[ids[m.id]])
    step = imported.CONTENT_CHUNK
    planning = getattr(ic.content, "plan", None)
    if callable(planning):  # a content source that fills the chunks ahead (fill_ahead)
        planning([fresh[i:i + step] for i in range(0, len(fresh), step)])
    ready = ic.content.rows if isinstance(ic.content, ReadyRows) else None
    # A long conversation's counting triggers stand aside once, not once a chunk (200
    # drops and re-creations, and as many recounts, for 100,000 messages: 0.5 s).
    with counted_in_bulk(conn) if len(fresh) > step else contextlib.nullcontext():
        _write_chunks(conn, conv_id, fresh, ids, db_id, ic, ready, step)


def _write_chunks(
    conn: sqlite3.Connection, conv_id: int, fresh: list[Message],
    ids: Mapping[Hashable, int], db_id: Mapping[Hashable, int], ic: ImportedConversation,
    ready: Callable[[Message], Any] | None, step: int,
) -> None:
    # Rows made for every message already (a sync's reader sent them): nothing to fill. A
    # source whose rows come from elsewhere (reading processes, a window's import child) is
    # asked for the rows only: the messages stay light.
    filled = not getattr(ic.content, "rows_complete", False)
    rows_only = ic.content if filled and isinstance(ic.content, RowsOnly) else None
    for chunk in ic.chunks(fresh, size=step, content=filled and rows_only is None):
        if rows_only is not None:
            rows_only.fill_rows(chunk)
        try:
            _write_chunk(conn, conv_id, chunk, ids, db_id, ready)
        finally:
            if rows_only is not None:
                rows_only.release(chunk)
        if ic.written is not None:
            ic.written(len(chunk))


def _write_chunk(
    conn: sqlite3.Connection, conv_id: int, chunk: Sequence[Message],
    ids: Mapping[Hashable, int], db_id: Mapping[Hashable, int],
    ready: Callable[[Message], Any] | None,
) -> None:
    blobs: dict[str, tuple[bytes, str | None]] = {}
    mrows: list[tuple[Any, ...]] = []
    prows: list[tuple[Any, ...]] = []
    for m in chunk:
        mid = ids[m.id]
        parent = db_id[m.parent_id] if m.parent_id is not None else None
        made = ready(m) if ready is not None else None
        if made is not None:  # sized and formatted where the file was read
            mrows.append((mid, conv_id, parent, *made[0]))
            prows.extend((mid, *row) for row in made[1])
            blobs.update(made[2])
            continue
        mrows.append(message_row(m, mid, conv_id, parent, source_id=str(m.id)
                                 if m.source_id is None else None))
        prows.extend(part_rows(m.parts, mid, blobs))
    insert_rows(conn, mrows, prows, blobs)


def _parents_first(fresh: list[Message], ids: Mapping[Hashable, int]) -> bool:
    """True when every new parent is written before its children (the usual case)."""
    seen: set[Hashable] = set()
    for m in fresh:
        if m.parent_id is not None and m.parent_id in ids and m.parent_id not in seen:
            return False
        seen.add(m.id)
    return True


def _topological(pairs: list[tuple[int, int | None]]) -> list[int]:
    kids: dict[int | None, list[int]] = {}
    ids = {i for i, _ in pairs}
    for i, p in pairs:
        kids.setdefault(p if p in ids else None, []).append(i)
    out: list[int] = []
    stack = list(reversed(kids.get(None, [])))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(kids.get(node, [])))
    return out
