"""One malloc heap for every thread of the process (glibc), chosen before threads start.

glibc gives each thread that allocates while another holds the heap a heap ("arena")
of its own, and memory freed in one heap is reused only by threads allocating in it.
An import reads a session on one thread and writes it on the store's writer thread:
the writer's heap grew by the content, rows and pages it wrote while the megabytes the
reading had freed sat idle in the first heap (convo import of a 100,000-message
session peaked 11 MB higher). Python allocates under its interpreter lock, so one heap
costs the threads next to no waiting.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter for the most heaps threads may use."""


def share_one_heap() -> bool:
    """Let every thread allocate from one heap; True when the C library took it.

    Only glibc (Linux) has the setting; elsewhere nothing changes. Call it before the
    threads it should cover allocate (a thread keeps the heap it was given)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # another C library (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, 1))
