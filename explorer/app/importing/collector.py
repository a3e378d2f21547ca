"""The cycle collector paused while an import or a sync runs.

An import allocates millions of objects, and a huge session's light pass keeps hundreds
of thousands of them alive while its tree is shaped; each automatic collection walks all
of them, and the collections a growing heap triggers walked it again and again: 2.3 s of
a 13.7 s import of a 100,000-message session. What an import makes is freed by reference
counting (its records have no cycles; the one a batch makes, a conversation and its
progress hook, is broken when the batch is written), so collecting waits for the end.

The pause is process-wide and counted: the first import to start pauses it, the last to
end turns it back on (if it was on before) and collects once. That collection also empties
the interpreter's free lists: their few thousand spare tuples and floats were scattered
over the arenas a huge session's records had filled, and kept 60 MB of them after a
100,000-message import, so the views prepared next began at 125 MB instead of 63 MB.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

collect_at_end = True
"""Whether the end of the pause collects. The window turns it off: its own policy
(``ui.background.collector``) decides when a full collection may walk its heap, which on
an import's thread would hold the GIL away from the window."""

_lock = threading.Lock()
_depth = 0
_was_enabled = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic garbage collection inside the block (nested blocks share one pause)."""
    global _depth, _was_enabled
    with _lock:
        _depth += 1
        if _depth == 1:
            _was_enabled = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            last = _depth == 0 and _was_enabled
            if last:
                gc.enable()
        if last and collect_at_end:  # what the pause let wait, and the free lists: see above
            gc.collect()
