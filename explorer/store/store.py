"""The store facade: one writer for every write, a connection per reading thread.

This is the library surface the CLI and the app use; each write method is one
transaction, so a crash leaves the file at the previous turn boundary (P2).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from array import array
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from explorer.store import (
    boundary,
    conversation_columns,
    guard,
    handoff_keys,
    import_writes,
    label_writes,
    layout_store,
    operations,
    part_sizing,
    pins,
    read_only,
    reads,
    sync_writes,
    tree_writes,
    view_cache,
)
from explorer.store.connection import keep_journal_on_close, open_connection
from explorer.store.conversation_columns import ConversationColumns
from explorer.store.errors import StoreError
from explorer.store.import_writes import ImportOutcome
from explorer.store.marks import Marks, conversation_marks, edits, merge_links, replays
from explorer.store.operations import Operation
from explorer.store.ownership import check_own_file
from explorer.store.part_sizing import Backfill
from explorer.store.path_memo import PathMemo
from explorer.store.readers import ReaderPool
from explorer.store.reads import Conversation, NotFound, SearchHit, SkeletonNode
from explorer.store.rows import dumps, load_messages
from explorer.store.tombstones import Tombstone, tombstones
from explorer.store.writer import Writer
from explorer.tree.imported import ImportedConversation
from explorer.tree.model import Message
from explorer.tree.trim import TrimPlan

__all__ = ["NotFound", "Store", "StoreError"]
log = logging.getLogger(__name__)

T = TypeVar("T")


class Store:
    def __init__(self, path: str | Path, *, only_reads: str | None = None) -> None:
        """``only_reads``: why this store must never write, even where it could (a reader
        beside the window, such as ``convo mcp``); it is opened as a read-only file is."""
        self.db_path = Path(path)
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        check_own_file(self.db_path)  # another program's file is refused untouched
        self.read_only = only_reads or read_only.why_read_only(self.db_path)
        """Why nothing can be written (its folder or the file is not writable), or None."""
        if self.read_only is None:
            self._readers = ReaderPool(lambda: open_connection(self.db_path))
            self._writer = Writer(self.db_path, on_lost=self._drop_readers)
        else:
            self._readers = ReaderPool(lambda: read_only.connect(self.db_path))
            self._writer = read_only.RefusingWriter(self.db_path, self.read_only)
            try:
                read_only.check_readable(self.reader, self.db_path, self.read_only)
            except BaseException:
                self._readers.close_all(closing=True)
                raise
        guard.register(self.db_path)
        self._paths = PathMemo()  # the window's views ask for the same path at once
        self.sizing = Backfill(self._writer)  # parts an older version wrote without sizes
        if self._writer.unsized:
            self.sizing.start()
        else:
            self.sizing.finished.set()

    # -- plumbing ---------------------------------------------------------------
    @property
    def reader(self) -> sqlite3.Connection:
        """This thread's read connection (WAL lets it read while the writer writes)."""
        return self._readers.get()

    def reader_count(self) -> int:
        """Read connections open now (lent to a reading thread or idle)."""
        return self._readers.count()

    def _drop_readers(self) -> None:
        """The journal was lost (see :class:`~explorer.store.writer.JournalLost`): every read
        connection goes, without copying the orphaned journal in."""
        self._readers.close_all(before=keep_journal_on_close)

    def shrink_readers(self) -> None:
        """Hand back the page caches of the read connections (after a big load).

        Each thread's reader keeps up to 2 MB of pages; reading a 100,000-message
        conversation fills them all (~10 MB over seven readers), and they are only
        a cache. SQLite serializes calls on a connection, so another thread's
        connection can be shrunk while it reads. That holds because no read connection
        carries a Python callback (a trace, a progress handler, a function): SQLite would
        call it from this thread holding the connection's lock, while the connection's
        own thread, holding the interpreter, may wait for that lock.
        """
        for conn in self._readers.connections():
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA shrink_memory")

    def require_writable(self) -> None:
        """Refuse now, in one line, work whose only point is a write (a model call, an
        import) on a database this process may not write."""
        if self.read_only is not None:
            raise read_only.ReadOnlyDatabase(read_only.refusal(self.db_path, self.read_only))

    def close(self) -> None:
        self.sizing.stop()
        self._readers.close_all(closing=True)
        self._writer.close()
        guard.unregister(self.db_path)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reads ------------------------------------------------------------------
    def conversation(self, conv_id: int, *, boundary: bool = True) -> Conversation:
        """``boundary=False``: without the derived clean boundary, cheap enough for the
        window's main thread on a conversation of any length."""
        return reads.get_conversation(self.reader, conv_id, boundary, self._keep_boundary)

    def writes_done(self) -> None:
        """Wait until every write handed to the writer so far is in the file (a kept
        clean boundary is written without anyone waiting for it)."""
        if self.read_only is None:
            self._writer.call(_nothing)

    def _keep_boundary(self, conv_id: int, tip: int, found: int | None, top: int) -> None:
        """A derived clean boundary goes into the file on the writer; nobody waits for it."""
        self._unwaited(boundary.remember, conv_id, tip, found, top)

    def revision(self, conv_id: int, messages_from: int = 0) -> int | None:
        """The conversation's revision: what a kept view must have been derived at (None:
        no such conversation, or one of fewer than ``messages_from`` messages)."""
        return view_cache.revision(self.reader, conv_id, messages_from)

    def kept_view(self, conv_id: int, kind: str, at: int, key: str) -> bytes | None:
        return view_cache.load(self.reader, conv_id, kind, at, key)

    def has_kept_view(self, conv_id: int, kind: str, at: int, key: str | None) -> bool:
        return view_cache.has(self.reader, conv_id, kind, at, key)

    def keep_view(self, conv_id: int, kind: str, at: int, key: str, data: bytes) -> None:
        """A view derived at revision ``at`` goes into the file on the writer; nobody waits
        for it (:meth:`writes_done` does)."""
        self._unwaited(view_cache.keep, conv_id, kind, at, key, data)

    def _unwaited(self, fn: Callable[..., object], *args: Any) -> None:
        """A write nobody waits for: its failure is logged (E1), never dropped. A read-only
        database keeps nothing derived (it is derived again at the next read)."""
        if self.read_only is not None:
            return
        with contextlib.suppress(RuntimeError):  # a closing store keeps nothing more
            self._writer.submit(fn, *args).add_done_callback(_log_failure)

    def conversations(self) -> list[Conversation]:
        return reads.list_conversations(self.reader)

    def conversation_columns(self) -> ConversationColumns:
        """What the window's list shows of every conversation, as columns (cheap at 25,000)."""
        return conversation_columns.read_columns(self.reader)

    def find_conversation(self, source_format: str, source_id: str) -> int | None:
        """The conversation read from ``source_id`` of ``source_format``, if stored."""
        row = self.reader.execute(
            "SELECT id FROM conversations WHERE source_format = ? AND source_id = ? "
            "ORDER BY id LIMIT 1", (source_format, source_id)).fetchone()
        return int(row[0]) if row else None

    def find_conversation_id(self, conv_id: int) -> int | None:
        """``conv_id`` if that conversation exists."""
        row = self.reader.execute("SELECT id FROM conversations WHERE id = ?",
                                  (conv_id,)).fetchone()
        return int(row[0]) if row else None

    def newest_conversation_ids(self, limit: int) -> list[int]:
        """The ``limit`` newest conversations' ids, in the list's order."""
        return [r[0] for r in self.reader.execute(
            "SELECT id FROM conversations ORDER BY coalesce(updated_at, created_at, 0) DESC, "
            "id DESC LIMIT ?", (limit,))]

    def has_conversations(self) -> bool:
        """Whether any conversation exists (no message counts: cheap on any file)."""
        return self.reader.execute("SELECT 1 FROM conversations LIMIT 1").fetchone() is not None

    def path(self, conv_id: int, tip: int | None = None) -> list[Message]:
        """The active path (root to tip), or the path to ``tip``."""
        target = tip if tip is not None else self.conversation(conv_id).tip_id
        return reads.path_messages(self.reader, target) if target is not None else []

    def size_parts(self, message_ids: Sequence[int]) -> int:
        """Size the messages' parts an older version wrote without sizes, now (a reader
        that needs them does not wait for the background pass to reach them). None are
        sized in a read-only database: its readers fall back to the parts' text."""
        if self.read_only is not None:
            return 0
        return self._writer.call(part_sizing.fill, len(message_ids) * 64 + 1024, message_ids)

    def path_ids(self, tip: int) -> list[int]:
        return self._paths.path_ids(self.reader, tip, reads.path_ids)

    def known_path(self, tip: int) -> array[int] | None:
        """The path to ``tip`` if this store keeps it already (an import handed it over),
        without walking: for another process's store (:meth:`keep_path`)."""
        return self._paths.known(tip)

    def keep_path(self, ids: array[int]) -> None:
        """Keep ``ids`` as the path from the root to ``ids[-1]`` (as another store knew it)."""
        self._paths.keep(ids)

    def message(self, mid: int) -> Message:
        found = load_messages(self.reader, [mid])
        if mid not in found:
            raise NotFound(f"no message {mid}")
        return found[mid]

    def message_conversation(self, mid: int) -> int:
        return reads.message_conversation(self.reader, mid)

    def children(self, mid: int) -> list[int]:
        return reads.children(self.reader, mid)

    def siblings(self, mid: int) -> list[int]:
        return reads.siblings(self.reader, mid)

    def skeleton(self, conv_id: int) -> list[SkeletonNode]:
        return reads.skeleton(self.reader, conv_id)

    def parents(self, conv_id: int) -> dict[int, int | None]:
        return reads.parents(self.reader, conv_id)

    def ids_with_role(self, conv_id: int, role: str) -> list[int]:
        return reads.ids_with_role(self.reader, conv_id, role)

    def checkpoints(self, conv_id: int) -> dict[str, int]:
        return reads.checkpoints(self.reader, conv_id)

    def rewinds(self, conv_id: int) -> list[dict[str, Any]]:
        return reads.rewinds(self.reader, conv_id)

    def compactions(self, conv_id: int) -> list[dict[str, Any]]:
        return reads.compactions(self.reader, conv_id)

    def search(self, query: str, limit: int = 50, offset: int = 0) -> list[SearchHit]:
        return reads.search(self.reader, query, limit, offset)

    def clean_boundary(self, conv_id: int) -> int | None:
        """The id of the last clean turn boundary on the active path (P3): the one the
        conversation derives from its parts' call ids, without reading any text."""
        return self.conversation(conv_id).clean_tip_id

    # -- writes (each one transaction on the writer thread) ---------------------
    def create_conversation(self, title: str, **kw: Any) -> int:
        return self._writer.call(tree_writes.create_conversation, title, **kw)

    def append_turn(
        self, conv_id: int, messages: Sequence[Message], *, parent_id: int | None = None,
        incomplete: bool = False, as_root: bool = False,
    ) -> list[int]:
        return self._writer.call(
            tree_writes.append_turn, conv_id, messages, parent_id=parent_id,
            incomplete=incomplete, as_root=as_root,
        )

    def branch(self, conv_id: int, mid: int) -> None:
        self._writer.call(tree_writes.branch, conv_id, mid)

    def edit_prompt(
        self, conv_id: int, mid: int, text: str, created_at: float | None = None
    ) -> int:
        return self._writer.call(tree_writes.edit_prompt, conv_id, mid, text, created_at)

    def fork(self, conv_id: int, mid: int, title: str | None = None) -> int:
        return self._writer.call(tree_writes.fork, conv_id, mid, title)

    def checkpoint(self, conv_id: int, label: str, at: int | None = None) -> int:
        return self._writer.call(label_writes.checkpoint, conv_id, label, at)

    def rewind(self, conv_id: int, label: str) -> dict[str, Any]:
        return self._writer.call(label_writes.rewind, conv_id, label)

    def trim(
        self, conv_id: int, *, keep_turns: int | None = None, keep_tokens: int | None = None
    ) -> TrimPlan:
        return self._writer.call(
            label_writes.trim, conv_id, keep_turns=keep_turns, keep_tokens=keep_tokens
        )

    def import_conversation(self, ic: ImportedConversation) -> ImportOutcome:
        out = self._writer.call_bulk(import_writes.insert_imported, ic)
        self._paths_kept([out])
        return out

    def remember_handoff(self, source_format: str, session: str, conv_id: int,
                         keys: Mapping[str, int]) -> None:
        """Which message each record of a hand-back session is, so the session the agent
        continued comes back linked to its branch (H1, :mod:`handoff_keys`)."""
        self._writer.call(handoff_keys.remember, source_format, session, conv_id, keys)

    def add_compaction(
        self, conv_id: int, message_id: int, kind: str, params: dict[str, Any],
        outputs: dict[str, Any], summary: str = "",
    ) -> int:
        """Record a compaction on a message (normally the tip); returns the record id."""
        return self._writer.call(_add_compaction, conv_id, message_id, kind, params, outputs,
                                 summary)

    def pin(self, conv_id: int, text: str) -> bool:
        """Pin an exact string to keep as text through compaction (L8); False if it was."""
        return self._writer.call(pins.pin, conv_id, text)

    def unpin(self, conv_id: int, text: str) -> None:
        self._writer.call(pins.unpin, conv_id, text)

    def pins(self, conv_id: int) -> list[str]:
        return pins.pins(self.reader, conv_id)

    def load_layout(self, conv_id: int) -> layout_store.StoredLayout | None:
        """The stored tree layout, or None when there is none or the tree changed."""
        return layout_store.load_layout(self.reader, conv_id)

    def save_layout(
        self, conv_id: int, ids: array[int], xs: array[float], depths: array[int]
    ) -> float:
        """Keep a computed layout; its stamp. A read-only database keeps none (the graph
        lays the tree out again at its next open)."""
        if self.read_only is not None:
            return time.time()
        return self._writer.call(layout_store.save_layout, conv_id, ids, xs, depths)

    def message_flags(self, conv_id: int) -> Mapping[int, int]:
        """Tool call / tool result / error bits per message, for the graph's colours."""
        return layout_store.message_flags(self.reader, conv_id)

    def import_conversations(
        self, conversations: list[ImportedConversation],
        cancel: Callable[[], bool] | None = None,
    ) -> list[ImportOutcome | StoreError]:
        """A batch in one transaction; a conversation the rules refuse is rolled back alone.

        With ``cancel`` the batch may stop early: the result is then shorter than the input.
        """
        return self._paths_kept(
            self._writer.call_bulk(import_writes.insert_many, conversations, cancel))

    def _paths_kept(self, outcomes: list[ImportOutcome | StoreError],
                    ) -> list[ImportOutcome | StoreError]:
        """``outcomes``, the tip paths they carry kept as walks (``ImportOutcome.tip_path``)
        and dropped from them (a report kept or sent elsewhere need not hold them)."""
        for out in outcomes:
            if isinstance(out, ImportOutcome) and out.tip_path is not None:
                self._paths.keep(out.tip_path, out.clean_at)
                out.tip_path = out.clean_at = None
        return outcomes

    # -- sync: what was read of each source file ------------------------------------
    def sync_records(self) -> sync_writes.Records:
        return sync_writes.Records(self.reader)

    def sync_append(self, ic: ImportedConversation,
                    rec: sync_writes.SyncRecord) -> ImportOutcome:
        """A tail's new messages and the file's new record, in one transaction."""
        return self._writer.call_bulk(sync_writes.append_imported, ic, rec)

    def sync_import(self, conversations: list[ImportedConversation],
                    rec: sync_writes.SyncRecord) -> list[ImportOutcome | StoreError]:
        """A whole file's conversations merged by ids, and its record, in one transaction."""
        return self._paths_kept(
            self._writer.call_bulk(sync_writes.import_and_record, conversations, rec))

    def sync_import_many_later(self, files: list[tuple[list[ImportedConversation],
                                                       sync_writes.SyncRecord]],
                               ) -> Future[list[list[ImportOutcome | StoreError]]]:
        """Several files' :meth:`sync_import` in one transaction (small sessions), not
        waited for: a sync reads the next files while the writer stores these."""
        return self._writer.submit_bulk(sync_writes.import_and_record_many, files)

    def rename(self, conv_id: int, title: str) -> None:
        self._writer.call(_rename, conv_id, title)

    # -- tending the tree (T6–T8): app.tree_actions composes these -------------------------
    def transact(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(conn, ...)`` as one transaction on the writer (an action and its undo)."""
        return self._writer.call(fn, *args, **kwargs)

    def marks(self, conv_id: int) -> Marks:
        return conversation_marks(self.reader, conv_id)

    def merge_links(self, conv_id: int) -> list[tuple[int, int]]:
        return merge_links(self.reader, conv_id)

    def edits(self, conv_id: int) -> dict[int, int]:
        return edits(self.reader, conv_id)

    def replays(self, conv_id: int) -> list[tuple[int, int]]:
        return replays(self.reader, conv_id)

    def tombstones(self, conv_id: int) -> list[Tombstone]:
        return tombstones(self.reader, conv_id)

    def operations(self, conv_id: int | None = None, limit: int = 50) -> list[Operation]:
        return operations.history(self.reader, conv_id, limit)


def _rename(conn: sqlite3.Connection, conv_id: int, title: str) -> None:
    reads.get_conversation(conn, conv_id)
    conn.execute("UPDATE conversations SET title = ? WHERE id = ?", (title, conv_id))


def _add_compaction(
    conn: sqlite3.Connection, conv_id: int, message_id: int, kind: str,
    params: dict[str, Any], outputs: dict[str, Any], summary: str,
) -> int:
    if reads.message_conversation(conn, message_id) != conv_id:
        raise StoreError(f"message {message_id} is not in conversation {conv_id}")
    cur = conn.execute(
        "INSERT INTO compactions(conversation_id, message_id, kind, origin, params, outputs, "
        "summary, created_at) VALUES (?,?,?,?,?,?,?,?)",
        (conv_id, message_id, kind, "explorer", dumps(params), dumps(outputs), summary,
         time.time()),
    )
    return int(cur.lastrowid or 0)


def _log_failure(future: Future[Any]) -> None:
    error = None if future.cancelled() else future.exception()
    if error is not None:
        log.error("a write made in the background failed: %s", error, exc_info=error)


def _nothing(conn: sqlite3.Connection) -> None:
    """An empty write: the writer runs it after everything queued before it."""
