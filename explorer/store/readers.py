"""Read connections, lent one per running thread and taken back when its thread lets go.

A thread keeps the connection it was lent for as long as its Python thread state lives:
for a Python thread that is its whole life, for a job on Qt's thread pool it is one job
(the pool's threads are foreign to Python, which makes and drops a thread state around
each call). The loan is a thread-local holder whose finalizer hands the connection back
to an idle list, so the number of open connections follows the number of threads reading
at once, not the number of jobs ever run (W1: one connection per job once held 150
descriptors after minutes of clicking).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections import deque
from collections.abc import Callable

IDLE_KEPT = 4
"""Idle connections kept for the next loan; more are closed (each holds three descriptors
and up to 2 MB of page cache)."""


class _Loan:
    """Lives in one thread's local storage; its end is the thread letting go."""

    __slots__ = ("__weakref__", "conn", "generation", "returned")

    def __init__(self, conn: sqlite3.Connection, generation: int,
                 returned: deque[tuple[sqlite3.Connection, int]]) -> None:
        self.conn, self.generation, self.returned = conn, generation, returned

    def __del__(self) -> None:
        # deque.append is atomic: no lock here, where a collection may run at any point
        self.returned.append((self.conn, self.generation))


class ReaderPool:
    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self._local = threading.local()
        self._lock = threading.Lock()
        self._returned: deque[tuple[sqlite3.Connection, int]] = deque()
        self._idle: list[sqlite3.Connection] = []
        self._lent: set[sqlite3.Connection] = set()
        self._generation = 0
        self._closed = False

    def get(self) -> sqlite3.Connection:
        """This thread's read connection (WAL lets it read while the writer writes)."""
        loan: _Loan | None = getattr(self._local, "loan", None)
        if loan is not None and loan.generation == self._generation:
            return loan.conn
        with self._lock:
            if self._closed:
                raise sqlite3.ProgrammingError("the store is closed")
            self._take_back()
            conn = self._idle.pop() if self._idle else self._connect()
            self._lent.add(conn)
            generation = self._generation
        self._local.loan = _Loan(conn, generation, self._returned)
        return conn

    def _take_back(self) -> None:
        """Connections whose threads let go return to the idle list (under the lock)."""
        while self._returned:
            conn, generation = self._returned.popleft()
            if conn not in self._lent:
                continue
            self._lent.discard(conn)
            if generation != self._generation or self._closed or len(self._idle) >= IDLE_KEPT:
                _close(conn)
                continue
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            self._idle.append(conn)

    def connections(self) -> list[sqlite3.Connection]:
        """Every open read connection, lent or idle."""
        with self._lock:
            self._take_back()
            return [*self._lent, *self._idle]

    def count(self) -> int:
        return len(self.connections())

    def close_all(self, *, closing: bool = False,
                  before: Callable[[sqlite3.Connection], object] | None = None) -> None:
        """Close every connection; threads that hold one get a new one at their next read
        (``closing``: none will be lent again). ``before`` runs on each first."""
        with self._lock:
            self._generation += 1
            self._closed = self._closed or closing
            self._take_back()
            conns = [*self._lent, *self._idle]
            self._lent.clear()
            self._idle.clear()
        for conn in conns:
            if before is not None:
                with contextlib.suppress(Exception):
                    before(conn)
            _close(conn)
        self._local = threading.local()


def _close(conn: sqlite3.Connection) -> None:
    with contextlib.suppress(sqlite3.Error):
        conn.close()
