"""Handing memory a big load freed back to the system.

Opening a 100,000-message conversation builds and drops tens of megabytes of
short-lived Python objects on worker threads. The C allocator keeps those pages
for reuse, so the process stays as big as its peak long after the load.
``malloc_trim`` returns the free pages; it takes a few milliseconds on a big heap,
so the window runs it on a worker (ctypes releases the GIL for the call) once both
views have their data. (All threads share one heap: ``explorer.app.heap``.)
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app import heap
from explorer.store import Store


def _malloc_trim() -> Callable[[int], int] | None:
    return heap.libc("malloc_trim")


def release_freed_memory() -> bool:
    """Give the allocator's free pages back to the system; False where that is not possible."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def release_after_load(store: Store) -> bool:
    """After a big read: the read connections' page caches, then the allocator's free pages,
    back to the system (run on a worker; see :func:`release_freed_memory`)."""
    store.shrink_readers()
    return release_freed_memory()
