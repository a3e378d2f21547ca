"""Ctrl+F's searches, run off the main thread on a read connection of their own.

On an archive of a million messages a search takes tens of milliseconds (more for an unusual
filter), too long for a keystroke on the main thread. Each query runs here on one worker
thread; a newer keystroke cancels the one in flight and interrupts its statement (with
``sqlite3.Connection.interrupt``, and a progress handler that asks the cancel flag), so a
stale search never delays the fresh one, and its answer, if it still comes, is dropped. The
connection is this worker's alone: an interrupt can only reach the search it was meant for
(the store's pooled readers are lent to whatever job runs next on a thread).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from explorer.store import NotFound, Store, read_only
from explorer.store.connection import open_connection
from explorer.store.reads import get_conversation
from explorer.store.search_plan import SearchPage, search_page
from explorer.ui.background.tasks import LatestRunner, Ticket

PAGE = 50
PROGRESS_STEPS = 1000


@dataclass(frozen=True)
class Found:
    """One page of a query's hits, with what the list shows of each conversation."""

    text: str
    offset: int
    page: SearchPage
    titles: dict[int, tuple[str, str | None]]


class SearchWorker(QObject):
    """``ready(Found)`` for the newest request only; ``failed(str)`` when it failed."""

    ready = Signal(object)
    failed = Signal(str)

    def __init__(self, store: Store, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.runner = LatestRunner(self, threads=1, name="search")
        self.runner.finished.connect(self.ready)
        self.runner.failed.connect(lambda e: self.failed.emit(str(e)))
        self._conn: sqlite3.Connection | None = None
        self._titles: dict[int, tuple[str, str | None]] = {}
        self.started: list[str] = []  # texts of the searches begun (tests)

    @property
    def busy(self) -> bool:
        return self.runner.busy

    def search(self, text: str, offset: int = 0) -> None:
        """Search ``text`` from ``offset`` on, dropping whatever search was in flight."""
        self.cancel()
        self.runner.submit(lambda ticket: self._run(ticket, text, offset))

    def cancel(self) -> None:
        self.runner.cancel()
        if self._conn is not None:
            self._conn.interrupt()  # its job ends at once; the next one starts after

    def forget_titles(self) -> None:
        """Titles may have changed: read them again."""
        self._titles = {}

    def shutdown(self) -> None:
        self.cancel()
        self.runner.shutdown()
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    # -- on the worker thread ---------------------------------------------------------
    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            path = self.store.db_path
            self._conn = (read_only.connect(path) if self.store.read_only is not None
                          else open_connection(path))
        return self._conn

    def _run(self, ticket: Ticket, text: str, offset: int) -> Found:
        self.started.append(text)
        conn = self._connection()
        check: Callable[[], None] = ticket.check
        check()
        # asked every thousand steps of a statement: a cancel that came just before a
        # statement began (where an interrupt is lost) still ends it
        conn.set_progress_handler(lambda: int(ticket.cancelled), PROGRESS_STEPS)
        page = search_page(conn, text, PAGE, offset, check=check)
        titles = self._titles
        for hit in page.hits:
            cid = hit.conversation_id
            if cid not in titles:
                try:
                    conv = get_conversation(conn, cid, boundary=False)
                    titles[cid] = (conv.display_title, conv.source_format)
                except NotFound:
                    titles[cid] = (f"conversation {cid}", None)
        return Found(text, offset, page, {h.conversation_id: titles[h.conversation_id]
                                          for h in page.hits})
