"""How often one process keeps a big view of the same conversation again.

A kept turn graph or path skeleton is megabytes (a real 100,000-message session's graph
is 5 MB, its path 8 MB; a bushy tree's graph 23 MB). A followed session that grows
changes its conversation every few seconds, and each change makes the window derive
those views again: keeping each of them would write tens of megabytes a minute that
only the next open reads, and it reads the newest only if nothing changed after it. So
after keeping a view of a conversation, a process keeps that view of it again only once
``PACE_S`` has passed; the first derivation after an open is always kept.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

PACE_S = 300.0

_last: dict[tuple[str, int, str], float] = {}
_lock = threading.Lock()


def take(db: str | Path, conv_id: int, kind: str, clock: float | None = None) -> bool:
    """Whether ``kind`` of conversation ``conv_id`` of file ``db`` may be kept now; when
    it may, the time is noted (the caller keeps it)."""
    now = time.monotonic() if clock is None else clock
    key = (str(db), conv_id, kind)
    with _lock:
        last = _last.get(key)
        if last is not None and now - last < PACE_S:
            return False
        _last[key] = now
        return True


def forget() -> None:
    """Every conversation may be kept at once again (a new store, a test)."""
    with _lock:
        _last.clear()
