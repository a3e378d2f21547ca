"""Garbage collection that does not pause the window while background work runs.

A full (generation-2) collection walks every object the interpreter tracks while
holding the GIL, so whichever thread triggers it stops the UI thread for as long
as it takes. Opening a 100,000-message conversation used to trigger a dozen of
them, each walking what the loads had built so far (up to 750 ms apiece on a busy
machine). Cycles among a load's records are rare; reference counting frees them.

So, while any job of a task runner is in flight, the automatic full collections
are postponed (the young generations still collect, so short-lived cycles still
go). When the last job has ended, the young generations are collected once and
what survived, the conversation now on screen, is frozen (``gc.freeze``): later
full collections skip it, and reference counting still frees it when the window
lets go of it.
"""

from __future__ import annotations

import gc
import threading
import weakref

POSTPONED_FULL = 1_000_000_000
"""Generation-2 threshold while work runs: in effect, never."""


class _State:
    def __init__(self) -> None:
        self.lock = threading.RLock()  # a hold dropped inside a collection may release
        self.holds = 0
        self.saved: tuple[int, int, int] | None = None
        self.settled = 0  # how many times the end of busy work froze the survivors


_state = _State()


class Hold:
    """One piece of work during which full collections wait; release it once (or drop it)."""

    def __init__(self) -> None:
        self._finalizer = weakref.finalize(self, _release)
        _acquire()

    def release(self) -> None:
        """Idempotent: the first call (or the hold being dropped) counts, later ones do not."""
        self._finalizer()

    @property
    def released(self) -> bool:
        return not self._finalizer.alive


def _acquire() -> None:
    with _state.lock:
        _state.holds += 1
        if _state.holds == 1:
            young, middle, old = gc.get_threshold()
            _state.saved = (young, middle, old)
            gc.set_threshold(young, middle, POSTPONED_FULL)


def _release() -> None:
    with _state.lock:
        _state.holds -= 1
        if _state.holds > 0 or _state.saved is None:
            return
        gc.set_threshold(*_state.saved)
        _state.saved = None
        settle()
        _state.settled += 1


def settle() -> None:
    """Collect the young generations (cheap) and freeze what survived them."""
    gc.collect(1)
    gc.freeze()


def postponing() -> bool:
    """True while some work holds the full collections back."""
    return _state.holds > 0


def holds() -> int:
    return _state.holds


def settled_count() -> int:
    """How many busy periods have ended (each froze its survivors); for tests."""
    return _state.settled
