"""Writing an imported conversation in one transaction, merging a re-import (T5).

Imported ids become ``source_id``; rows get fresh integer ids. A conversation
already present (same format and source id) only gains the messages it lacks,
so importing the same file twice adds nothing.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from array import array
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field

from explorer.store.boundary import keep_now
from explorer.store.errors import StoreError
from explorer.store.ids import next_ids
from explorer.store.import_match import JOINED, continued, identity, source_key
from explorer.store.import_rows import write_messages
from explorer.store.key_index import ByKey, RowIds, positions, sound_positions
from explorer.store.rows import counted_in_bulk, dumps
from explorer.store.tree_writes import create_conversation
from explorer.tree.imported import ContentUnavailable, ImportedConversation
from explorer.tree.model import Message
from explorer.tree.paths import path_to
from explorer.tree.repair import Repair, repair_tree
from explorer.tree.turns import boundary_flags, last_clean_boundary

HANDED_PATH_MIN = 1000
"""From this many messages on, a new conversation's import hands its tip's path to the
store (a walk of 100,000 messages costs 0.3 s; a short one is cheaper than keeping it)."""


@dataclass
class ImportOutcome:
    """What one conversation's import did, for the report."""

    conversation_id: int
    title: str
    source_format: str
    added: int
    already_present: int
    notes: list[str] = field(default_factory=list)
    ignored_records: dict[str, int] = field(default_factory=dict)
    incomplete: bool = False
    joined: str | None = None  # the session this one copied, when it joined that conversation
    tip_path: array[int] | None = field(default=None, repr=False, compare=False)
    """A long new conversation's ids from its root to its tip: the store keeps it as that
    path's walk (``PathMemo.keep``), which the views prepared next ask for at once, and
    the path to its clean boundary, which ends at ``tip_path[clean_at]``."""
    clean_at: int | None = field(default=None, repr=False, compare=False)

    def note_lines(self) -> list[str]:
        """What this conversation's import repaired or skipped, one line each (the same
        words for ``convo import``, ``convo sync`` and the window)."""
        where = f"conversation {self.conversation_id}"
        lines = [f"{where}: {self.joined}"] if self.joined else []
        lines += [f"{where}: repaired/skipped: {n}" for n in self.notes]
        lines += [f"{where}: not messages: {k} ×{v}"
                  for k, v in sorted(self.ignored_records.items())]
        if self.incomplete:
            lines.append(f"{where}: ends mid-turn: the last clean boundary is marked")
        return lines


def _newest_title(conn: sqlite3.Connection, conv_id: int, ic: ImportedConversation,
                  msgs: list[Message], adds: bool) -> str:
    """On a merge the title of the newer side wins: the import's title when it brings
    messages later than any stored (or, without times, any new message). Importing the
    same file again keeps the title, including one the person gave it here."""
    title, latest = conn.execute(
        "SELECT c.title, (SELECT max(created_at) FROM messages m "
        "WHERE m.conversation_id = c.id) FROM conversations c WHERE c.id = ?", (conv_id,),
    ).fetchone()
    incoming = max((m.created_at for m in msgs if m.created_at is not None), default=None)
    newer = incoming > latest if incoming is not None and latest is not None else adds
    if not ic.title or not newer or ic.title == title:
        return str(title)
    conn.execute("UPDATE conversations SET title = ? WHERE id = ?", (ic.title, conv_id))
    return ic.title


def insert_imported(conn: sqlite3.Connection, ic: ImportedConversation, *,
                    keep_tip: bool = False) -> ImportOutcome:
    """Store ``ic``, merged by ids into the conversation it continues.

    A merge moves the tip to the import's tip when that is new, unless ``keep_tip``
    (a sync, which moves it by its own rule: only from where the agent left off).
    """
    sound = sound_positions(ic.messages)
    repaired = Repair(list(ic.messages)) if sound is not None else repair_tree(ic.messages)
    msgs = repaired.messages
    sid = identity(ic)
    conv_id, known, clash = continued(conn, ic.source_format, sid, msgs, ic)
    title = ic.title or "Untitled"
    if conv_id is None:
        conv_id = create_conversation(
            conn, title, source_format=ic.source_format, source_id=sid,
            source_path=ic.source_path, created_at=ic.created_at, meta=ic.meta,
        )
        if clash:
            ic.notes.append(f"another conversation already uses source id {sid!r} with "
                            "different content; imported this one as a new conversation")
    # A new conversation (the usual import) needs no key map but one table of positions
    # (see key_index): each map has an entry per message, which matters on a huge session.
    if known:
        key_of = {m.id: source_key(m) for m in msgs}
        fresh = [m for m in msgs if key_of[m.id] not in known]
        title = _newest_title(conn, conv_id, ic, msgs, bool(fresh))
        ids: Mapping[Hashable, int] = dict(zip(
            (m.id for m in fresh), next_ids(conn, "messages", len(fresh)), strict=True))
        db_id: Mapping[Hashable, int] = {
            m.id: ids.get(m.id, known.get(key_of[m.id], 0)) for m in msgs}
        del key_of
    else:
        fresh, where = msgs, sound if sound is not None else positions(msgs)
        ids = db_id = RowIds(where, next_ids(conn, "messages", len(msgs)).start)
    write_messages(conn, conv_id, fresh, ids, db_id, ic, ordered=sound is not None and not known)
    by_key = {m.id: m for m in msgs} if known else ByKey(where, msgs)
    write_labels(conn, conv_id, ic, db_id, by_key)
    tip_path: list[Message] = []
    clean: int | None = None
    if not known or (ic.tip in ids and not keep_tip):  # a merge bringing nothing keeps it
        tip_path, clean = _set_pointers(conn, conv_id, ic, msgs, db_id, by_key, merged=bool(known))
    if not known and tip_path:  # a new conversation's first open reads its boundary
        keep_now(conn, conv_id, db_id[tip_path[-1].id],
                 db_id[tip_path[clean].id] if clean is not None else None)
    return ImportOutcome(
        conv_id, title, ic.source_format, len(fresh), len(msgs) - len(fresh),
        ic.notes + repaired.notes, dict(ic.ignored_records), ic.incomplete,
        ic.meta.pop(JOINED, None),
        *((array("q", (db_id[m.id] for m in tip_path)), clean)
          if not known and len(msgs) >= HANDED_PATH_MIN else ()),
    )


def _on_boundary(key: Hashable, by_key: Mapping[Hashable, Message]) -> bool:
    # A sync's tail holds the newest messages only: the path is judged as far as it reaches.
    path = [by_key[k] for k in path_to({k: m.parent_id for k, m in by_key.items()}, key)
            if k in by_key]
    return boundary_flags(path)[-1]


def write_labels(
    conn: sqlite3.Connection, conv_id: int, ic: ImportedConversation,
    db_id: Mapping[Hashable, int], by_key: Mapping[Hashable, Message],
) -> None:
    now = time.time()
    for cp in ic.checkpoints:
        if cp.message_key in by_key and not _on_boundary(cp.message_key, by_key):
            ic.notes.append(f"checkpoint {cp.label!r}: not on a turn boundary (C1); dropped")
        elif cp.message_key in db_id:
            conn.execute(
                "INSERT OR IGNORE INTO checkpoints(conversation_id, label, message_id, created_at) "
                "VALUES (?,?,?,?)", (conv_id, cp.label, db_id[cp.message_key], now),
            )
        else:
            ic.notes.append(f"checkpoint {cp.label!r}: its message is missing; dropped")
    for c in ic.compactions:
        if c.message_key not in db_id:
            ic.notes.append(f"compaction record ({c.kind}): its message is missing; dropped")
            continue
        exists = conn.execute(
            "SELECT id, summary FROM compactions WHERE conversation_id = ? AND message_id = ? "
            "AND kind = ?", (conv_id, db_id[c.message_key], c.kind),
        ).fetchone()
        if exists and c.summary and not exists[1]:  # its summary was written after it was read
            conn.execute("UPDATE compactions SET summary = ?, params = ? WHERE id = ?",
                         (c.summary, dumps(c.meta), exists[0]))
        elif not exists:
            conn.execute(
                "INSERT INTO compactions(conversation_id, message_id, kind, origin, params, "
                "outputs, summary, created_at) VALUES (?,?,?,?,?,?,?,?)",
                (conv_id, db_id[c.message_key], c.kind, ic.source_format, dumps(c.meta), None,
                 c.summary, now),
            )
    for r in ic.rewinds:
        if r.from_key in db_id and r.to_key in db_id:
            conn.execute(
                "INSERT INTO rewinds(conversation_id, from_tip_id, to_message_id, label, digest, "
                "created_at) SELECT ?,?,?,?,?,? WHERE NOT EXISTS (SELECT 1 FROM rewinds WHERE "
                "conversation_id = ? AND from_tip_id = ? AND to_message_id = ?)",
                (conv_id, db_id[r.from_key], db_id[r.to_key], r.label, dumps(r.digest),
                 r.created_at or now, conv_id, db_id[r.from_key], db_id[r.to_key]),
            )


def _set_pointers(
    conn: sqlite3.Connection, conv_id: int, ic: ImportedConversation,
    msgs: list[Message], db_id: Mapping[Hashable, int], by_key: Mapping[Hashable, Message],
    *, merged: bool = False,
) -> tuple[list[Message], int | None]:
    """The tip, the clean boundary, and when the conversation last changed: its newest
    message's time (a whole archive imported today still lists by when each session was
    used), never earlier than a merge found it, and now when no message has a time.
    The tip's path (for a merge, as far as the import's messages reach), and where on it
    the clean boundary is."""
    if not msgs:
        return [], None
    tip_key = ic.tip if ic.tip in db_id else msgs[-1].id
    if ic.tip is not None and ic.tip not in db_id:
        ic.notes.append(f"tip {ic.tip!r} is missing; used the last message instead")
    path = _path(by_key, tip_key)
    clean = last_clean_boundary(path)
    clean_id = db_id[path[clean].id] if clean is not None else None
    start = db_id.get(ic.context_start) if ic.context_start is not None else None
    newest = max((m.created_at for m in msgs if m.created_at is not None), default=None)
    conn.execute(
        "UPDATE conversations SET tip_id = ?, clean_tip_id = ?, "
        "context_start_id = coalesce(?, context_start_id), "
        "updated_at = CASE WHEN ? IS NULL THEN ? WHEN ? THEN max(coalesce(updated_at, 0), ?) "
        "ELSE ? END WHERE id = ?",
        (db_id[tip_key], clean_id, start, newest, time.time(), merged, newest, newest,
         conv_id),
    )
    return path, clean


def _path(by_key: Mapping[Hashable, Message], tip: Hashable) -> list[Message]:
    """Root to ``tip`` in a repaired tree (no cycles), read off the messages themselves."""
    path: list[Message] = []
    node: Message | None = by_key[tip]
    while node is not None:
        path.append(node)
        node = by_key.get(node.parent_id) if node.parent_id is not None else None
    path.reverse()
    return path


def insert_many(
    conn: sqlite3.Connection, conversations: list[ImportedConversation],
    cancel: Callable[[], bool] | None = None, *, keep_tip: bool = False,
) -> list[ImportOutcome | StoreError]:
    """Several conversations in one transaction, each whole or not at all (a savepoint each).

    Many small conversations (a chat export) then pay one commit, not one each, and are
    counted and put in the full-text index once (:func:`counted_in_bulk`).
    ``cancel`` is asked between conversations; the ones already written are kept.
    """
    with counted_in_bulk(conn) if len(conversations) > 1 else contextlib.nullcontext():
        return _insert_each(conn, conversations, cancel, keep_tip)


def _insert_each(
    conn: sqlite3.Connection, conversations: list[ImportedConversation],
    cancel: Callable[[], bool] | None, keep_tip: bool,
) -> list[ImportOutcome | StoreError]:
    out: list[ImportOutcome | StoreError] = []
    for i, ic in enumerate(conversations):
        if cancel is not None and cancel():
            break
        conn.execute(f"SAVEPOINT conv_{i}")
        try:
            out.append(insert_imported(conn, ic, keep_tip=keep_tip))
        except StoreError as e:
            conn.execute(f"ROLLBACK TO conv_{i}")
            out.append(e)
        except ContentUnavailable as e:  # its file changed between the two reads
            conn.execute(f"ROLLBACK TO conv_{i}")
            out.append(StoreError(str(e)))
        conn.execute(f"RELEASE conv_{i}")
    return out
