"""Sizing the parts a file holds without sizes: once, in the background, through the writer.

Parts written by this version carry their sizes (``rows.part_rows``). A file written before
the sizes existed gets the columns from a migration (instant) and its parts sized here, a
few hundred per transaction queued behind the writer's other work, so opening an old
archive never waits for it: until a part is sized, readers fall back to its text.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

from explorer.tree.model import Part
from explorer.tree.part_sizes import SIZE_COLUMNS, part_size

if TYPE_CHECKING:
    from explorer.store.writer import Writer

FILL_ROWS = 400
"""Parts sized per transaction: short enough that a write the person asked for waits little."""
_SET = ", ".join(f"{c} = ?" for c in SIZE_COLUMNS)


def has_unsized(conn: sqlite3.Connection) -> bool:
    """Whether any part lacks its sizes (a partial index keeps this one lookup)."""
    return conn.execute(
        "SELECT 1 FROM parts WHERE size_chars IS NULL LIMIT 1").fetchone() is not None


def fill(conn: sqlite3.Connection, limit: int = FILL_ROWS,
         message_ids: Sequence[int] | None = None) -> int:
    """Size up to ``limit`` unsized parts (of ``message_ids`` only, if given); returns how
    many were sized."""
    where = "" if message_ids is None else (
        " AND p.message_id IN (SELECT value FROM json_each(?))")
    args: tuple[object, ...] = (() if message_ids is None else (json.dumps(list(message_ids)),))
    rows = conn.execute(
        "SELECT p.id, p.kind, p.text, b.data FROM parts p "
        "LEFT JOIN blobs b ON b.hash = p.blob_hash "
        f"WHERE p.size_chars IS NULL{where} ORDER BY p.id LIMIT ?", (*args, limit)).fetchall()
    conn.executemany(
        f"UPDATE parts SET {_SET} WHERE id = ?",
        ((*part_size(Part(kind, text or "", data=data)), pid) for pid, kind, text, data in rows))
    return len(rows)


class Backfill:
    """Sizes every unsized part, one short transaction after another on the writer's queue
    (each queued behind what was asked meanwhile), until none is left or it is stopped."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer
        self._lock = threading.Lock()
        self._stopped = False
        self.sized = 0
        self.error: BaseException | None = None
        self.finished = threading.Event()

    def start(self) -> None:
        self._queue()

    def stop(self) -> None:
        """No further transaction is queued (the one running, if any, still commits)."""
        with self._lock:
            self._stopped = True
        self.finished.set()

    def _queue(self) -> None:
        with self._lock:
            if self._stopped:
                return
            future = self._writer.submit(fill)
        future.add_done_callback(self._after)

    def _after(self, future: Future[int]) -> None:
        error = future.exception()
        if error is not None or future.result() == 0:
            self.error = error
            self.finished.set()
            return
        self.sized += future.result()
        self._queue()
