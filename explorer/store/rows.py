"""Turning messages and parts into rows and back."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence, Sized
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import msgspec

from explorer.store import meta_keys
from explorer.tree.model import Message, Part, Usage
from explorer.tree.part_sizes import SIZE_COLUMNS, part_size
from explorer.tree.secrets import redact_text

PREVIEW_CHARS = 160
MESSAGE_COLS = (
    "id, conversation_id, parent_id, role, created_at, model, usage, source_id, "
    f"source_meta, preview, {meta_keys.COLUMN}"
)
_MESSAGE_MARKS = ",".join("?" * len(MESSAGE_COLS.split(", ")))
PART_COLS = (
    "message_id, idx, kind, text, tool_name, tool_use_id, is_error, blob_hash, media_type, meta, "
    + ", ".join(SIZE_COLUMNS)
)
_PART_MARKS = ",".join("?" * (10 + len(SIZE_COLUMNS)))
BULK_ROWS = 256  # a write this big is counted once (see insert_rows)
BULK_TRIGGERS = ("messages_count_ai", "revision_messages_ai", "revision_parts_ai",
                 "messages_meta_marked_ai")
"""The insert triggers a bulk write does the work of itself (:func:`counted_in_bulk`): the
counts and revisions once at its end, and each message's metadata mark in its row (the
marking trigger's call alone, which finds the mark set, was a third of a message's insert)."""


_ENCODE = msgspec.json.Encoder(order="sorted").encode


def dumps(value: Any) -> str | None:
    """Compact JSON with sorted keys, or NULL for empty values so rows stay small.

    Encoded by ``msgspec`` (a sixth of the time: 1.3 s of a 100,000-message import), which
    writes what ``json.dumps`` writes here but for exponents (``1e16`` for ``1e+16``) and
    NaN or infinities (null: not JSON either way); what it refuses (a lone surrogate, keys
    that are not text) goes to ``json`` as before."""
    if not value:
        return None
    try:
        return _ENCODE(value).decode()
    except (TypeError, ValueError, UnicodeError, OverflowError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def loads(text: str | None) -> Any:
    return json.loads(text) if text else {}


def preview(message: Message) -> str:
    """A one-line summary for skeleton reads (the graph never needs full text); it is
    derived for display, so it shows no secret (R1)."""
    for p in message.parts:  # a plain loop: this runs once per imported message
        if p.kind == "text" and p.text and not p.text.isspace():
            return _one_line(p.text)
    for p in message.parts:
        if p.kind == "tool_use":
            return _one_line(p.text, f"[{p.tool_name or 'tool'}] ")
        if p.kind == "tool_result":
            return _one_line(p.text, "[error] " if p.is_error else "[result] ")
        if p.kind == "image":
            return f"[image {p.media_type}]" if p.media_type else "[image]"
        if p.kind == "thinking":
            return _one_line(p.text, "[thinking] ")
    return ""


def _one_line(text: str, label: str = "") -> str:
    """``label`` and the opening words of ``text`` on one line, secrets masked before the
    cut (a key cut in half would no longer be recognised, and half a key still leaks).

    The text is masked alone, as the same string object its part's sizes mask next (and
    find done, ``redact_text``): masking ``label + text``, a new string, scanned a long
    session's every call and result a second time (a third of the writing's reads). No
    rule's match crosses the label's closing "] ": no token's characters include "]" or a
    blank, and a key name ends at a blank. A label that holds a secret itself (a tool
    named like one) is masked with its text, as one string."""
    if label and redact_text(label)[1]:
        head = redact_text(label + text)[0][: PREVIEW_CHARS * 2]
    else:
        head = label + redact_text(text)[0][: PREVIEW_CHARS * 2]
    if "\n" in head or "\r" in head or "\t" in head or "  " in head:
        head = " ".join(head.split())
    return head.strip()[:PREVIEW_CHARS]


def message_row(
    m: Message, mid: int, conv_id: int, parent: int | None, source_id: str | None = None
) -> tuple[Any, ...]:
    usage = m.usage.to_dict() if m.usage else None
    return (
        mid, conv_id, parent, m.role, m.created_at, m.model, dumps(usage),
        source_id if source_id is not None else m.source_id, dumps(m.source_meta), preview(m),
        meta_keys.marks(m.source_meta),
    )


def blob_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def part_rows(
    parts: Sequence[Part], mid: int, blobs: dict[str, tuple[bytes, str | None]]
) -> list[tuple[Any, ...]]:
    """Rows for ``parts``; image bytes are collected into ``blobs`` by hash.

    Each row carries the part's sizes (``part_size``), so every writer sizes what it writes."""
    rows = []
    for i, p in enumerate(parts):
        h = None
        if p.data is not None:
            h = blob_hash(p.data)
            blobs[h] = (p.data, p.media_type)
        rows.append((
            mid, i, p.kind, p.text, p.tool_name, p.tool_use_id, int(p.is_error), h,
            p.media_type, dumps(p.meta), *part_size(p),
        ))
    return rows


Prepared = tuple[tuple[Any, ...], list[tuple[Any, ...]], dict[str, tuple[bytes, str | None]]]
"""A message's row and its parts' rows without the ids the writer gives them, and its images."""


def prepared_rows(m: Message) -> Prepared:
    """What :func:`message_row` and :func:`part_rows` make of ``m``, less the ids: made
    where an import reads (another process), so the writer only adds the ids and inserts."""
    blobs: dict[str, tuple[bytes, str | None]] = {}
    own = str(m.id) if m.source_id is None else None
    return (message_row(m, 0, 0, None, source_id=own)[3:],
            [r[1:] for r in part_rows(m.parts, 0, blobs)], blobs)


def insert_rows(
    conn: sqlite3.Connection,
    messages: Iterable[tuple[Any, ...]],
    parts: Iterable[tuple[Any, ...]],
    blobs: dict[str, tuple[bytes, str | None]],
) -> None:
    """Insert the rows (and their full-text entries); a write of :data:`BULK_ROWS`
    messages or more is counted once (:func:`counted_in_bulk`), not row by row."""
    if id(conn) not in _BULK and isinstance(messages, Sized) and len(messages) >= BULK_ROWS:
        with counted_in_bulk(conn):
            _insert(conn, messages, parts, blobs)
    else:
        _insert(conn, messages, parts, blobs)


def _insert(
    conn: sqlite3.Connection,
    messages: Iterable[tuple[Any, ...]],
    parts: Iterable[tuple[Any, ...]],
    blobs: dict[str, tuple[bytes, str | None]],
) -> None:
    conn.executemany(
        "INSERT OR IGNORE INTO blobs(hash, data, size, media_type) VALUES (?, ?, ?, ?)",
        ((h, d, len(d), t) for h, (d, t) in blobs.items()),
    )
    bulk = _BULK.get(id(conn))
    if bulk is not None:  # counted once, when the whole batch is written
        messages = _counted(messages, bulk.added)
    conn.executemany(f"INSERT INTO messages({MESSAGE_COLS}) VALUES ({_MESSAGE_MARKS})",
                     messages)
    top = None if bulk is not None else conn.execute(
        "SELECT coalesce(max(id), 0) FROM parts").fetchone()[0]
    conn.executemany(f"INSERT INTO parts({PART_COLS}) VALUES ({_PART_MARKS})", parts)
    # Full-text index kept in sync here, the one place parts are inserted (a bulk write's
    # once, when the whole batch is written: index_pending).
    if top is not None:
        conn.execute(
            "INSERT INTO parts_fts(rowid, text) SELECT id, text FROM parts WHERE id > ?", (top,))


def index_pending(conn: sqlite3.Connection) -> None:
    """Put the parts written so far in this bulk write (:func:`counted_in_bulk`) into the
    full-text index: at its end, and before a part written in it may be deleted or its text
    changed (the triggers take a part out of the index as it was put in).

    Indexed in one statement, not one per conversation or chunk: each statement on the
    index (each savepoint, and a conversation is written in one) flushes what it was given
    into a segment of its own, which later merges copy again. A first sync of 2,000 small
    sessions spent 1.7 s indexing their text this way, against 0.74 s in one statement.
    Parts already indexed (the index's row sizes list them) are left: a savepoint rolled
    back after an earlier call took its index rows with it."""
    bulk = _BULK.get(id(conn))
    if bulk is None:
        return
    conn.execute(
        "INSERT INTO parts_fts(rowid, text) SELECT id, text FROM parts WHERE id > ? AND id "
        "NOT IN (SELECT id FROM parts_fts_docsize WHERE id > ?)", (bulk.top, bulk.top))


def _put_back(conn: sqlite3.Connection, kept: list[tuple[str, str]]) -> None:
    """The triggers :func:`_stand_aside` dropped, created again; those a failed write
    brought back already (SQLite rolls a full disk's transaction back itself) are left."""
    there = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    for name, statement in kept:
        if name not in there:
            conn.execute(statement)


def _stand_aside(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Drop the :data:`BULK_TRIGGERS`, among them those that bump a conversation's message
    count and revision once per inserted row (three UPDATEs of its row per message: seconds
    for 100,000 messages), to be created again, as they were, in the same transaction:
    every other writer still has them; no writer sees the file without them."""
    kept = [(r[0], r[1]) for r in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (SELECT value FROM "
        "json_each(?))", (json.dumps(BULK_TRIGGERS),))]
    for name in BULK_TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    return kept


@dataclass
class _Bulk:
    top: int
    added: Counter[int] = field(default_factory=Counter)


_BULK: dict[int, _Bulk] = {}


@contextmanager
def counted_in_bulk(conn: sqlite3.Connection) -> Iterator[None]:
    """Within the block (one transaction: a sync's batch of many small sessions), the
    insert triggers (:data:`BULK_TRIGGERS`) stand aside once instead of per write, and each
    conversation written is counted again at the end, from its rows: a conversation a
    savepoint rolled back is counted as it stands, not as the rows that were tried. The
    parts written are put in the full-text index at the end too (:func:`index_pending`)."""
    if id(conn) in _BULK:  # already inside one
        yield
        return
    kept = _stand_aside(conn)
    bulk = _Bulk(conn.execute("SELECT coalesce(max(id), 0) FROM parts").fetchone()[0])
    _BULK[id(conn)] = bulk
    try:
        yield
        index_pending(conn)
        conn.execute(
            "UPDATE conversations SET revision = revision + 1, message_count = (SELECT "
            "count(*) FROM messages m WHERE m.conversation_id = conversations.id) "
            "WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(bulk.added)),))
        conn.execute(  # parts added to other conversations' messages bump those too
            "UPDATE conversations SET revision = revision + 1 WHERE id IN (SELECT DISTINCT "
            "m.conversation_id FROM parts p JOIN messages m ON m.id = p.message_id WHERE "
            "p.id > ?) AND id NOT IN (SELECT value FROM json_each(?))",
            (bulk.top, json.dumps(list(bulk.added))))
    finally:
        del _BULK[id(conn)]
        _put_back(conn, kept)


def _counted(rows: Iterable[tuple[Any, ...]], added: Counter[int]) -> Iterator[tuple[Any, ...]]:
    """``rows`` as they go by, each counted under its conversation (the second column)."""
    for row in rows:
        added[row[1]] += 1
        yield row


def load_messages(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, Message]:
    """Full messages (parts and image bytes) for ``ids``."""
    key = json.dumps(list(ids))
    out: dict[int, Message] = {}
    for r in conn.execute(
        "SELECT id, parent_id, role, created_at, model, usage, source_id, source_meta "
        "FROM messages WHERE id IN (SELECT value FROM json_each(?))",
        (key,),
    ):
        out[r[0]] = Message(
            id=r[0], parent_id=r[1], role=r[2], created_at=r[3], model=r[4],
            usage=Usage.from_dict(loads(r[5])), source_id=r[6], source_meta=loads(r[7]),
        )
    for r in conn.execute(
        "SELECT p.message_id, p.kind, p.text, p.tool_name, p.tool_use_id, p.is_error, "
        "b.data, p.media_type, p.meta FROM parts p LEFT JOIN blobs b ON b.hash = p.blob_hash "
        "WHERE p.message_id IN (SELECT value FROM json_each(?)) ORDER BY p.message_id, p.idx",
        (key,),
    ):
        out[r[0]].parts.append(part_from_row(*r[1:]))
    return out


def part_from_row(kind: Any, text: str | None, tool_name: str | None, tool_use_id: str | None,
                  is_error: Any, data: bytes | None, media_type: str | None,
                  meta: str | None) -> Part:
    """The part a row of :func:`part_rows` holds (``data``: its image's bytes)."""
    return Part(kind, text or "", tool_name, tool_use_id, bool(is_error), data, media_type,
                loads(meta))


def db_id(value: object) -> int:
    """A message id read from this database (always an int; the type says Hashable)."""
    if not isinstance(value, int):
        raise TypeError(f"not a database id: {value!r}")
    return value
