"""What a sync remembers about each source file, and appending a session's new messages.

A ``sync_files`` row says how big a file was, when it last changed and how far
it was read (the byte offset and the importer's cursor), so the next sync reads
only what was appended and skips, without writing anything, what did not change
(S1). :func:`append_imported` stores the messages of an appended tail: their
parents may be messages stored by an earlier sync, found by source id.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from explorer.store.errors import StoreError
from explorer.store.ids import next_ids
from explorer.store.import_match import identity, message_keys
from explorer.store.import_rows import write_messages
from explorer.store.import_writes import ImportOutcome, insert_many, write_labels
from explorer.store.rows import (
    counted_in_bulk,
    dumps,
    index_pending,
    insert_rows,
    loads,
    part_rows,
    preview,
)
from explorer.store.sync_tip import AGENT_TIPS, agent_tips, follow_tip, touched
from explorer.tree import imported
from explorer.tree.imported import ImportedConversation
from explorer.tree.model import Message


class NeedsWholeRead(StoreError):
    """The tail cannot be placed on what is stored; the caller reads the whole file."""


@dataclass
class SyncRecord:
    path: str
    fmt: str
    size: int
    mtime_ns: int
    offset: int = 0
    cursor: dict[str, Any] | None = None
    tail_hash: str | None = None
    synced_at: float = 0.0


class Records(Mapping[str, SyncRecord]):
    """Every file's record by path, each made into a :class:`SyncRecord` only when asked for:
    a sync with nothing new compares sizes and times (:meth:`unchanged`) of 25,000 files,
    and making 25,000 records for that took a sixth of a second."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        # Only what the comparison needs: a column read for every row (even ``cursor IS
        # NOT NULL``) reads its overflow pages, 87 MB of cursors at 25,000 sessions.
        self._rows: dict[str, tuple[int, int, int]] = {r[0]: (r[1], r[2], r[3]) for r in
                                                        conn.execute(
            "SELECT path, size, mtime_ns, byte_offset FROM sync_files")}

    def unchanged(self, path: str, size: int, mtime_ns: int, count: int | None) -> bool:
        """Whether the file (or folder of ``count`` files) is as the last sync left it."""
        row = self._rows.get(path)
        return row is not None and row[0] == size and row[1] == mtime_ns and (
            count is None or row[2] == count)

    def __getitem__(self, path: str) -> SyncRecord:
        """The whole record, cursor and all: asked for only of a file that changed."""
        if path not in self._rows:
            raise KeyError(path)
        r = self._conn.execute(
            "SELECT path, fmt, size, mtime_ns, byte_offset, cursor, tail_hash, synced_at "
            "FROM sync_files WHERE path = ?", (path,)).fetchone()
        if r is None:  # removed since (another sync): as if never recorded
            raise KeyError(path)
        return SyncRecord(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]) if r[5] else None,
                          r[6], r[7])

    def __contains__(self, path: object) -> bool:
        return path in self._rows  # (Mapping's own would read the record)

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def save_record(conn: sqlite3.Connection, rec: SyncRecord) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO sync_files(path, fmt, size, mtime_ns, byte_offset, cursor, "
        "tail_hash, synced_at) VALUES (?,?,?,?,?,?,?,?)",
        (rec.path, rec.fmt, rec.size, rec.mtime_ns, rec.offset,
         json.dumps(rec.cursor) if rec.cursor is not None else None, rec.tail_hash,
         rec.synced_at or time.time()),
    )


def import_and_record(conn: sqlite3.Connection, conversations: list[ImportedConversation],
                      rec: SyncRecord) -> list[ImportOutcome | StoreError]:
    """A whole re-read merged by ids (nothing stored twice), then the file's record.

    The tip moves as an append moves it (see :mod:`explorer.store.sync_tip`), so a
    rewritten file does not take a person who switched branches to the file's tip.
    """
    left = agent_tips(conn, rec.path)
    tips: dict[int, int] = {}
    out = insert_many(conn, conversations, keep_tip=True)
    for ic, outcome in zip(conversations, out, strict=False):
        if isinstance(outcome, ImportOutcome):
            conv_id = outcome.conversation_id
            if outcome.already_present:  # messages stored before: give them what they gained
                known = message_keys(conn, conv_id)
                _refresh_in_chunks(conn, ic, [(known[k], m) for k, m in _keyed(ic)
                                              if k in known])
                tip = known.get(_key_of(ic, ic.tip)) if ic.tip is not None else None
            else:  # every message was written from this very read: nothing to refresh
                key = _key_of(ic, ic.tip) if ic.tip is not None else None
                tip = _stored_keys(conn, conv_id, {key}).get(key) if key is not None else None
            if outcome.already_present and outcome.added:  # as recent as what it gained
                touched(conn, conv_id, ic.messages)
            if tip is not None:
                follow_tip(conn, conv_id, tip, left.get(conv_id))
                tips[conv_id] = tip
    save_record(conn, _with_tips(rec, {**left, **tips}))
    return out


def import_and_record_many(conn: sqlite3.Connection,
                           files: list[tuple[list[ImportedConversation], SyncRecord]],
                           ) -> list[list[ImportOutcome | StoreError]]:
    """Several files' :func:`import_and_record` in one transaction: a first sync of
    thousands of small sessions pays one commit a batch, not one a session (and counts each
    conversation's messages once, not a trigger per row)."""
    with counted_in_bulk(conn):
        return [import_and_record(conn, conversations, rec) for conversations, rec in files]


def _key_of(ic: ImportedConversation, key: Hashable) -> str:
    found = next((m for m in ic.messages if m.id == key), None)
    return str(found.source_id if found is not None and found.source_id is not None else key)


def _with_tips(rec: SyncRecord, tips: dict[int, int]) -> SyncRecord:
    """The record, remembering where the agent's file ended for each conversation."""
    if tips:
        rec.cursor = {**(rec.cursor or {}), AGENT_TIPS: {str(k): v for k, v in tips.items()}}
    return rec


def _refresh_in_chunks(conn: sqlite3.Connection, ic: ImportedConversation,
                       present: list[tuple[int, Message]]) -> None:
    """:func:`refresh_grown` with the content of a lazily read conversation a chunk at a time."""
    step = imported.CONTENT_CHUNK
    for start in range(0, len(present), step):
        part = present[start:start + step]
        for _ in ic.chunks([m for _, m in part], size=step):
            refresh_grown(conn, part)


def _keyed(ic: ImportedConversation) -> list[tuple[str, Message]]:
    """Messages by source key, leaving out keys several messages share (llm gives a prompt
    and its answer the response's id): a stored row cannot say which of them it is."""
    keyed = [(str(m.source_id if m.source_id is not None else m.id), m) for m in ic.messages]
    seen = Counter(k for k, _ in keyed)
    return [(k, m) for k, m in keyed if seen[k] == 1]


def refresh_grown(conn: sqlite3.Connection, present: list[tuple[int, Message]]) -> int:
    """Give stored messages the parts the source now has for them; returns how many changed.

    An agent writes one response over several lines (Claude Code: a line per content
    block), and a record again when its tool calls finish (Gemini CLI): a message
    stored mid-write must not keep only its first part. Compared by part count and
    text length, so an unchanged message costs no text read.
    """
    if not present:
        return 0
    ids = json.dumps([mid for mid, _ in present])
    stored = {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT message_id, count(*), coalesce(sum(coalesce(size_chars, length(text))), 0) "
        "FROM parts "
        "WHERE message_id IN (SELECT value FROM json_each(?)) GROUP BY message_id", (ids,))}
    changed = [(mid, m) for mid, m in present
               if stored.get(mid, (0, 0)) != (len(m.parts), sum(len(p.text) for p in m.parts))]
    if changed:  # a part written earlier in this batch is in the index before it goes
        index_pending(conn)
    for mid, m in changed:
        conn.execute("DELETE FROM parts WHERE message_id = ?", (mid,))
        blobs: dict[str, tuple[bytes, str | None]] = {}
        insert_rows(conn, [], part_rows(m.parts, mid, blobs), blobs)
        conn.execute("UPDATE messages SET preview = ?, usage = ?, model = coalesce(?, model), "
                     "source_meta = ? WHERE id = ?",
                     (preview(m), dumps(m.usage.to_dict() if m.usage else None), m.model,
                      _merged_meta(conn, mid, m), mid))
    return len(changed)


def _merged_meta(conn: sqlite3.Connection, mid: int, m: Message) -> str | None:
    """The source's metadata as it now reads (the lines a response grew by, its stop
    reason), over what is stored: a key recorded here and unknown to the source stays."""
    (stored,) = conn.execute("SELECT source_meta FROM messages WHERE id = ?", (mid,)).fetchone()
    return dumps({**loads(stored), **m.source_meta})


def append_imported(conn: sqlite3.Connection, ic: ImportedConversation,
                    rec: SyncRecord) -> ImportOutcome:
    """Store a tail's messages below the ones already stored, and the new record, together."""
    if not ic.source_id:
        raise NeedsWholeRead("the tail does not name its session")
    row = conn.execute("SELECT id FROM conversations WHERE source_format = ? AND source_id = ?",
                       (ic.source_format, identity(ic))).fetchone()
    if row is None:
        raise NeedsWholeRead(f"session {ic.source_id} is not stored yet")
    conv_id = int(row[0])
    if ic.title:  # written after the last sync, so newer than the stored title
        conn.execute("UPDATE conversations SET title = ? WHERE id = ?", (ic.title, conv_id))
    by_key = {m.id: m for m in ic.messages}
    key_of = {m.id: str(m.source_id if m.source_id is not None else m.id) for m in ic.messages}
    wanted = set(key_of.values()) | {str(m.parent_id) for m in ic.messages
                                     if m.parent_id is not None}
    wanted |= {str(c.message_key) for c in ic.compactions}
    wanted |= {str(c.message_key) for c in ic.checkpoints}
    if ic.tip is not None:
        wanted.add(str(ic.tip))
    known = _stored_keys(conn, conv_id, wanted)
    fresh = [m for m in ic.messages if key_of[m.id] not in known]
    _refresh_in_chunks(conn, ic, [(known[key_of[m.id]], m) for m in ic.messages
                                  if key_of[m.id] in known])
    for m in fresh:
        parent = m.parent_id
        if parent is not None and parent not in by_key and str(parent) not in known:
            raise NeedsWholeRead(f"message {m.id!r} continues {parent!r}, which is not stored")
    ids = dict(zip((m.id for m in fresh), next_ids(conn, "messages", len(fresh)), strict=True))
    db_id: dict[Hashable, int] = {k: v for k, v in known.items()}
    db_id.update({m.id: ids.get(m.id, known.get(key_of[m.id], 0)) for m in ic.messages})
    write_messages(conn, conv_id, fresh, ids, db_id, ic)
    _hang_below_fresh(conn, ic, known, key_of, ids)
    write_labels(conn, conv_id, ic, db_id, by_key)
    left = agent_tips(conn, rec.path)
    if ic.tip is not None and ic.tip not in by_key and str(ic.tip) in known:
        db_id[ic.tip] = known[str(ic.tip)]  # the tail brought no tip of its own
    tip_key = (ic.tip if ic.tip in db_id else ic.messages[-1].id if ic.messages else None)
    tips = dict(left)
    if tip_key is not None and fresh:
        tips[conv_id] = db_id[tip_key]
        follow_tip(conn, conv_id, db_id[tip_key], left.get(conv_id), fresh, ids)
    if ic.context_start is not None and ic.context_start in db_id:
        conn.execute("UPDATE conversations SET context_start_id = ? WHERE id = ?",
                     (db_id[ic.context_start], conv_id))
    save_record(conn, _with_tips(rec, tips))
    return ImportOutcome(conv_id, "", ic.source_format, len(fresh), len(ic.messages) - len(fresh),
                         ic.notes, dict(ic.ignored_records), ic.incomplete)


def _hang_below_fresh(conn: sqlite3.Connection, ic: ImportedConversation, known: dict[str, int],
                      key_of: dict[Hashable, str], ids: dict[Hashable, int]) -> None:
    """Hang a stored message from the new message the tail puts above it (Claude Code writes
    a prompt's file-history snapshot after the prompt, and a whole read puts it above)."""
    for m in ic.messages:
        mid = known.get(key_of[m.id])
        if mid is not None and m.parent_id is not None and m.parent_id in ids:
            conn.execute("UPDATE messages SET parent_id = ?, source_meta = ? WHERE id = ?",
                         (ids[m.parent_id], _merged_meta(conn, mid, m), mid))


def _stored_keys(conn: sqlite3.Connection, conv_id: int, keys: set[str]) -> dict[str, int]:
    """Database ids of the given source ids only: a tail never loads the whole session."""
    rows = conn.execute(
        "SELECT source_id, id FROM messages WHERE conversation_id = ? "
        "AND source_id IN (SELECT value FROM json_each(?))", (conv_id, json.dumps(sorted(keys))))
    return {str(k): int(v) for k, v in rows}
