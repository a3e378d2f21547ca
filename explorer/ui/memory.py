"""Handing memory a big load freed back to the system.

Opening a 100,000-message conversation builds and drops tens of megabytes of
short-lived Python objects on worker threads (each with its own allocator
arena). The C allocator keeps those pages for reuse, so the process stays as big
as its peak long after the load. ``malloc_trim`` returns the free pages; it takes
a few milliseconds on a big heap, so the window runs it on a worker (ctypes
releases the GIL for the call) once both views have their data.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to trim this way
        return None
    return trim


def release_freed_memory() -> bool:
    """Give the allocator's free pages back to the system; False where that is not possible."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
