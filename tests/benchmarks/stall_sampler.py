"""Which code the main thread was in while the event loop stalled.

A watcher thread samples the main thread's Python stack every few milliseconds
whenever the 5 ms pulse is late, so a stall can be attributed without a
profiler: ``scale_child … open DB CONV --stalls`` prints each long stall's
commonest stacks on stderr. The watcher needs the GIL to take a sample, so a
stall spent in C code that holds it shows as the Python line that called in.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable

LATE_MS = 30.0
SAMPLE_S = 0.004


class StallSampler:
    """Samples the main thread while ``last_tick()`` is more than LATE_MS old."""

    def __init__(self, last_tick: Callable[[], float]) -> None:
        self._last_tick = last_tick
        self._main = threading.main_thread().ident
        self._stop = threading.Event()
        self.others = True  # also note what the other busy threads were doing
        self.stalls: dict[float, Counter[str]] = {}
        self._thread = threading.Thread(target=self._run, name="stall-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            tick = self._last_tick()
            if (time.perf_counter() - tick) * 1000 < LATE_MS:
                continue
            frames = sys._current_frames()
            frame = frames.pop(self._main or 0, None)
            if frame is None:
                continue
            key = _stack(frame)
            if self.others:
                busy = [_stack(f, 4) for ident, f in frames.items()
                        if ident != threading.get_ident() and not _idle(f)]
                key += "".join(f"\n        other: {b}" for b in busy)
            self.stalls.setdefault(tick, Counter())[key] += 1

    def report(self, top: int = 3) -> str:
        """The commonest stacks of each stall, longest stall first."""
        lines = []
        ranked = sorted(self.stalls.values(), key=lambda c: -sum(c.values()))
        for stacks in ranked[:8]:
            total = sum(stacks.values())
            lines.append(f"stall of ≥{total * SAMPLE_S * 1000 + LATE_MS:.0f} ms ({total} samples)")
            for stack, n in stacks.most_common(top):
                lines.append(f"  {n:3d}× {stack}")
        return "\n".join(lines)


def _idle(frame: object) -> bool:
    """A thread parked on a lock or queue (the task runner's idle workers)."""
    name = frame.f_code.co_name  # type: ignore[attr-defined]
    return name in {"wait", "get", "_wait_for_tstate_lock", "select", "_worker", "acquire"}


def _stack(frame: object, depth: int = 7) -> str:
    """The innermost frames, project code marked, as one line."""
    innermost = itertools.islice(traceback.walk_stack(frame), depth)  # type: ignore[arg-type]
    summary = traceback.StackSummary.extract(innermost, lookup_lines=False)  # cheap: no source
    return " < ".join(f"{_short(f.filename)}:{f.lineno}({f.name})" for f in summary)


def _short(path: str) -> str:
    for root in ("/explorer/", "/tests/", "/site-packages/", "/lib/python"):
        if root in path:
            return path[path.index(root) + 1:]
    return path
