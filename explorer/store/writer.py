"""The one writer: a single thread owns the write connection (Anki-style background op).

Callers from any thread submit a function; it runs in a transaction on the
writer thread and its result (or exception) comes back through a Future.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from explorer.store.connection import keep_journal_on_close, open_connection, transaction
from explorer.store.errors import StoreError
from explorer.store.guard import JournalWatch
from explorer.store.migrations import migrate
from explorer.store.part_sizing import has_unsized

T = TypeVar("T")
AUTOCHECKPOINT_PAGES = 1000  # SQLite's default, for ordinary writes
CACHE_KIB = 2048
"""The write connection's page cache (SQLite's default size). Imports append in id order, so
a larger cache bought no speed (a 100 MB session: 15.0 s CPU at 8 MB, 16.1 s at 64 MB; a
100,000-message session: 78 s at 8 MB, 75 s at 2 MB under load) but memory (6 MB more at
8 MB on that session's import peak)."""


class JournalLost(StoreError):
    """The write-ahead log this process wrote into was deleted or replaced by another
    program (W1); the database was reopened and the write was not reported done."""


class DiskFull(StoreError):
    """A write found no room (SQLite rolled it back whole)."""


class Writer:
    def __init__(self, path: str | Path,
                 on_lost: Callable[[], None] | None = None) -> None:
        self._path = Path(path)
        self._watch = JournalWatch(self._path)
        self._on_lost = on_lost
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="explorer-writer")
        self._conn: sqlite3.Connection | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._checkpoint_queued = False
        self.unsized = False
        try:
            self._pool.submit(self._open, path).result()
        except BaseException:  # a file this version must not open: nothing is left running
            self.close()
            raise

    def _open(self, path: str | Path) -> None:
        self._conn = open_connection(path)
        self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the WAL
        self._watch.remember()
        self._conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        self._conn.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
        self._thread = threading.current_thread()
        migrate(self._conn)
        self.unsized = has_unsized(self._conn)  # parts an older version wrote without sizes

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
        """Run ``fn(conn, *args, **kwargs)`` in one transaction on the writer thread."""
        return self._pool.submit(self._run, fn, *args, **kwargs)

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``submit`` and wait; safe to call from the writer thread itself (runs inline)."""
        if threading.current_thread() is self._thread:
            return self._run(fn, *args, **kwargs)
        return self.submit(fn, *args, **kwargs).result()

    def call_bulk(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``call`` for a large write (an import): its WAL is copied into the database by a
        checkpoint queued after it returns, not inside its commit."""
        if threading.current_thread() is self._thread:
            return self._run_bulk(fn, *args, **kwargs)
        future: Future[T] = self._pool.submit(self._run_bulk, fn, *args, **kwargs)
        return future.result()

    def submit_bulk(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
        """``call_bulk`` without waiting: the caller prepares the next write meanwhile."""
        return self._pool.submit(self._run_bulk, fn, *args, **kwargs)

    def _run_bulk(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        assert self._conn is not None
        self._conn.execute("PRAGMA wal_autocheckpoint=0")
        try:
            return self._run(fn, *args, **kwargs)
        finally:
            self._conn.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
            self._schedule_checkpoint()

    def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """One transaction; done only once COMMIT returned into the journal on disk."""
        assert self._conn is not None
        self._check_journal("this write was not made")
        try:
            with transaction(self._conn) as conn:
                result = fn(conn, *args, **kwargs)
        except sqlite3.OperationalError as e:
            if "full" not in str(e):
                raise
            raise DiskFull("the disk is full: nothing of this write was made, the file is as "
                           "it was before it; free space and run it again") from e
        self._check_journal("the last write went into the removed file and may be missing")
        return result

    def _check_journal(self, consequence: str) -> None:
        why = self._watch.lost()
        if why is None:
            return
        self._reopen()
        raise JournalLost(
            f"the database's journal {why} while this program had it open; {consequence}. "
            f"The database {self._path.name} was reopened: look whether your last actions "
            "are there, and make them again if not")

    def _reopen(self) -> None:
        """Close every connection of this process to the file, keeping the orphaned journal
        out of the database, and open afresh (new ``-wal``/``-shm`` on disk)."""
        if self._on_lost is not None:
            self._on_lost()
        if self._conn is not None:
            keep_journal_on_close(self._conn)
            self._conn.close()
            self._conn = None
        self._open(self._path)

    def _schedule_checkpoint(self) -> None:
        """Queue one passive checkpoint behind this write (coalesced while one waits)."""
        with self._lock:
            if self._checkpoint_queued:
                return
            self._checkpoint_queued = True
        self._pool.submit(self._checkpoint)

    def _checkpoint(self) -> None:
        with self._lock:
            self._checkpoint_queued = False
        if self._conn is not None and self._watch.lost() is None:  # never from a lost one
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        def _close() -> None:
            if self._conn is not None:
                if self._watch.lost() is not None:
                    keep_journal_on_close(self._conn)
                self._conn.close()
                self._conn = None
        self._pool.submit(_close).result()
        self._pool.shutdown(wait=True)
