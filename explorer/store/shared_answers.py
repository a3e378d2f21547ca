"""Answers kept by key, with one computation per key at a time.

A window opening a long conversation asks several threads at once for the same walk
of its path (the transcript, the graph's marks, its tending view, the context
figure); each walk of a 100,000-message path is a recursive query. Answers that can
never go stale (the path to a message never changes while it exists) are kept here:
the newest few by key, and a thread asking for a key another thread is computing
waits for that answer instead of computing it again (or computes it itself if that
thread failed).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SharedAnswers(Generic[K, V]):
    """The last ``kept`` answers by key; concurrent askers of one key share its computation."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._known: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._running: dict[K, threading.Event] = {}

    def get(self, key: K, compute: Callable[[], V]) -> V:
        while True:
            with self._lock:
                if key in self._known:
                    self._known.move_to_end(key)
                    return self._known[key]
                running = self._running.get(key)
                mine = running is None
                if running is None:
                    running = self._running[key] = threading.Event()
            if mine:
                return self._compute(key, compute, running)
            running.wait()  # then read its answer (or compute, if that thread failed)

    def peek(self, key: K) -> V | None:
        """The kept answer for ``key``, or None: nothing is computed."""
        with self._lock:
            return self._known.get(key)

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as the answer for ``key``, known another way (a write that just
        made it)."""
        with self._lock:
            self._known[key] = value
            self._known.move_to_end(key)
            while len(self._known) > self.kept:
                self._known.popitem(last=False)

    def _compute(self, key: K, compute: Callable[[], V], running: threading.Event) -> V:
        try:
            value = compute()
            with self._lock:
                self._known[key] = value
                while len(self._known) > self.kept:
                    self._known.popitem(last=False)
            return value
        finally:
            with self._lock:
                del self._running[key]
            running.set()
