"""Handing memory a big load freed back to the system.

Opening a 100,000-message conversation builds and drops tens of megabytes of
short-lived Python objects on worker threads (each with its own allocator
arena). The C allocator keeps those pages for reuse, so the process stays as big
as its peak long after the load. ``malloc_trim`` returns the free pages; it takes
a few milliseconds on a big heap, so the window runs it on a worker (ctypes
releases the GIL for the call) once both views have their data.

Each thread that allocates also gets an arena of its own by default (up to eight
per core), and every arena keeps its own free pages: the app's workers take turns
under the GIL anyway, so it asks glibc for one arena (``mallopt``), which kept
the deep 100k session open in about 190 MB instead of 210 MB (peak 214 MB instead
of 255 MB) at the same CPU time. ``MALLOC_ARENA_MAX`` in the environment wins.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
from collections.abc import Callable, Mapping
from typing import Any

from explorer.store import Store

M_ARENA_MAX = -8  # glibc's mallopt parameter
ARENAS = 1


@functools.cache
def _libc(name: str) -> Callable[..., Any] | None:
    """A glibc allocator function, or None elsewhere (nothing to tune this way)."""
    found = ctypes.util.find_library("c")
    if found is None:
        return None
    try:
        function: Callable[..., Any] = getattr(ctypes.CDLL(found), name)
    except (OSError, AttributeError):
        return None
    return function


def _malloc_trim() -> Callable[[int], int] | None:
    return _libc("malloc_trim")


def limit_allocator_arenas(env: Mapping[str, str] | None = None) -> bool:
    """Ask glibc for one allocator arena (call before threads start); False where not
    possible or the environment chose its own ``MALLOC_ARENA_MAX``."""
    if "MALLOC_ARENA_MAX" in (os.environ if env is None else env):
        return False
    mallopt = _libc("mallopt")
    return mallopt is not None and bool(mallopt(M_ARENA_MAX, ARENAS))


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
