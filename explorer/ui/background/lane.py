"""The open's background jobs take turns: one runs at a time, in a stated order (V2).

Python threads share one interpreter lock. When the transcript's skeleton, the
graph's layout, the sibling words and the context figure all run at once, each takes
turns with the main thread as well, so a frame waits for several of them, and on a
2-core machine the threads also take the cores from it. A :class:`Lane` runs them
one after another instead: a job enters when it is the first waiting one in
``order`` (then by when it was submitted) and nothing else is inside.

A job joins the queue when it is *submitted* (on the main thread), not when its
thread starts, so the order holds however the pools schedule their threads. A
cancelled job no longer counts, waiting or running: a superseded graph load still
finishing its stage never holds up the next conversation's skeleton. Nor does a job
whose thread has not started ``ARRIVE_S`` after it was submitted.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

WAIT_S = 0.02  # how often a waiting job looks again (a cancel sets no condition)
ARRIVE_S = 0.25
"""How long a submitted job whose thread has not started yet keeps its place ahead of
others: its pool may be busy, or gone with a closed window, and must not stop the lane."""

# Skeleton first (the text the person reads), then the graph and what labels it, then
# the context figure and what hands memory back.
OPEN_ORDER = ("transcript-skeleton", "graph", "graph-words", "context-figure", "release")


class Flag(Protocol):
    @property
    def cancelled(self) -> bool: ...


class Place:
    """One job's place in the queue: taken at submit, left when the job ends."""

    __slots__ = ("arrived", "flag", "joined", "key", "kind")

    def __init__(self, key: tuple[int, int], kind: str, flag: Flag) -> None:
        self.key, self.kind, self.flag = key, kind, flag
        self.joined = time.monotonic()
        self.arrived = False  # its thread is waiting to go in

    def counts(self, now: float) -> bool:
        return not self.flag.cancelled and (self.arrived or now - self.joined < ARRIVE_S)


class Lane:
    """A queue of kinds of job, one inside at a time; see the module docstring."""

    def __init__(self, order: Sequence[str] = OPEN_ORDER) -> None:
        self.order = tuple(order)
        self._lock = threading.Condition()
        self._waiting: list[Place] = []
        self._inside: Place | None = None
        self._serial = itertools.count()
        self.entered: list[str] = []  # kinds in the order they went in (tests, benchmarks)

    def __contains__(self, kind: object) -> bool:
        return kind in self.order

    def join(self, kind: str, flag: Flag) -> Place:
        """Take a place for a job of ``kind`` (on the submitting thread)."""
        place = Place((self.order.index(kind), next(self._serial)), kind, flag)
        with self._lock:
            self._waiting.append(place)
        return place

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Jobs submitted inside join as one: none goes in before all have joined (a
        thread that starts at once would otherwise find itself alone in the queue)."""
        with self._lock:  # re-entrant: joins inside take it again
            yield

    def enter(self, place: Place) -> bool:
        """Block until it is ``place``'s turn; False when its job was cancelled meanwhile."""
        with self._lock:
            place.arrived = True
            while not place.flag.cancelled:
                if self._free() and self._first() is place:
                    self._waiting.remove(place)
                    self._inside = place
                    self.entered.append(place.kind)
                    del self.entered[:-64]
                    return True
                self._lock.wait(WAIT_S)
            self._drop(place)
            return False

    def leave(self, place: Place) -> None:
        """The job ended (or never ran): the next one may go in."""
        with self._lock:
            self._drop(place)
            self._lock.notify_all()

    def give_way(self, place: Place) -> bool:
        """Step out for a more urgent job that is waiting, and come back after it (a job's
        checks between its steps call this); False when the job was cancelled meanwhile."""
        with self._lock:
            first = self._first()
            if self._inside is not place or first is None or first.key > place.key:
                return not place.flag.cancelled
            self._inside = None
            self._waiting.append(place)
            self._lock.notify_all()
        return self.enter(place)

    @property
    def busy(self) -> bool:
        with self._lock:
            now = time.monotonic()
            return not self._free() or any(p.counts(now) for p in self._waiting)

    def _drop(self, place: Place) -> None:
        if self._inside is place:
            self._inside = None
        if place in self._waiting:
            self._waiting.remove(place)

    def _free(self) -> bool:
        return self._inside is None or self._inside.flag.cancelled

    def _first(self) -> Place | None:
        now = time.monotonic()
        live = [p for p in self._waiting if p.counts(now)]
        return min(live, key=lambda p: p.key, default=None)


OPEN_LANE = Lane()
