"""The paths to the last few tips, kept: opening a conversation asks for the same path
three or four times at once (the graph's marks, its tending view, the context figure,
the branch state), and each walk of a 100,000-message path costs a recursive query.

The path to a message never changes while the message exists (messages are only added; a
parent is never rewritten; an undone deletion puts rows back under their own ids), so a
kept path is good for as long as its tip is there, which each answer checks by key.
Threads that ask for the same tip at once share one walk.
"""

from __future__ import annotations

import sqlite3
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable

from explorer.store.reads import NotFound

KEPT = 4
"""Paths kept (8 bytes an id: 4 paths of 100,000 messages are 3 MB)."""


class PathMemo:
    def __init__(self) -> None:
        self._kept: OrderedDict[int, array[int]] = OrderedDict()
        self._lock = threading.Lock()
        self._running: dict[int, threading.Event] = {}

    def path_ids(self, conn: sqlite3.Connection, tip: int,
                 walk: Callable[[sqlite3.Connection, int], list[int]]) -> list[int]:
        """``walk(conn, tip)``, or the kept answer when ``tip`` still exists."""
        while True:
            with self._lock:
                kept = self._kept.get(tip)
                if kept is not None:
                    self._kept.move_to_end(tip)
                    break
                running = self._running.get(tip)
                mine = running is None
                if running is None:
                    running = self._running[tip] = threading.Event()
            if mine:
                return self._walk(conn, tip, walk, running)
            running.wait()  # another thread walks it: read its answer (or walk if it failed)
        if conn.execute("SELECT 1 FROM messages WHERE id = ?", (tip,)).fetchone() is None:
            raise NotFound(f"no message {tip}")
        return kept.tolist()

    def _walk(self, conn: sqlite3.Connection, tip: int,
              walk: Callable[[sqlite3.Connection, int], list[int]],
              running: threading.Event) -> list[int]:
        try:
            ids = walk(conn, tip)
            with self._lock:
                self._kept[tip] = array("q", ids)
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
            return ids
        finally:
            with self._lock:
                del self._running[tip]
            running.set()
