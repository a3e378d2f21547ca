"""One malloc heap for every thread of the process (glibc), chosen before threads start.

glibc gives each thread that allocates while another holds the heap a heap ("arena")
of its own, and memory freed in one heap is reused only by threads allocating in it.
An import reads a session on one thread and writes it on the store's writer thread:
the writer's heap grew by the content, rows and pages it wrote while the megabytes the
reading had freed sat idle in the first heap (convo import of a 100,000-message
session peaked 11 MB higher; the window kept the deep 100k session open in about
190 MB instead of 210 MB). Python allocates under its interpreter lock, so one heap
costs the threads next to no waiting. ``MALLOC_ARENA_MAX`` in the environment wins.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter for the most heaps threads may use."""


@functools.cache
def libc(name: str) -> Callable[..., Any] | None:
    """A glibc allocator function (``mallopt``, ``malloc_trim``), or None elsewhere.

    Looked up among the symbols the process already has (the C library is one of them),
    not by ``ctypes.util.find_library``, which runs ``ldconfig`` before the first frame."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Callable[..., Any] = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):  # another C library (musl has no mallopt)
        return None
    return function


def share_one_heap(env: Mapping[str, str] | None = None) -> bool:
    """Let every thread allocate from one heap; True when the C library took it.

    Only glibc (Linux) has the setting; elsewhere, or when the environment chose its
    own ``MALLOC_ARENA_MAX``, nothing changes. Call it before the threads it should
    cover allocate (a thread keeps the heap it was given)."""
    if "MALLOC_ARENA_MAX" in (os.environ if env is None else env):
        return False
    mallopt = libc("mallopt")  # ctypes passes and returns C ints by default
    return mallopt is not None and bool(mallopt(M_ARENA_MAX, 1))
