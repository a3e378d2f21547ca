"""One line of progress on a terminal, rewritten in place, and Ctrl+C as a clean stop.

A first sync of a whole archive takes minutes: the person sees how far it is and how long
is left, and may stop it; what was stored stays (whole sessions) and the next sync goes on
from there. Nothing is drawn when stderr is not a terminal (a pipe or a log gets only the
report), and the line is at most a few times a second.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

EVERY_S = 0.2
MB = 1 << 20


def _amount(n: int) -> str:
    return f"{n / (1 << 30):.2f} GB" if n >= 1 << 30 else f"{n / MB:,.0f} MB"


def _left(seconds: float) -> str:
    if seconds >= 90:
        return f"{seconds / 60:.0f} min left"
    return f"{max(1, round(seconds))} s left"


class ProgressLine:
    """``show(done, total, bytes_done, bytes_total)`` draws one line on ``out`` if it is a
    terminal; ``end()`` clears it before the report is printed."""

    def __init__(self, what: str, out: TextIO | None = None, *, force: bool = False) -> None:
        self.what, self.out = what, out if out is not None else sys.stderr
        self.on = force or self.out.isatty()
        self.start = time.monotonic()
        self.last = 0.0
        self.width = 0

    def show(self, done: int, total: int, bytes_done: int, bytes_total: int) -> None:
        now = time.monotonic()
        if not self.on or (now - self.last < EVERY_S and (done, bytes_done) < (total, bytes_total)):
            return
        self.last = now
        bits = [f"{self.what} {done:,} of {total:,}" if total else self.what]
        if bytes_total:
            bits.append(f"{_amount(bytes_done)} of {_amount(bytes_total)}")
            spent = now - self.start
            if bytes_done and spent > 2 and bytes_done < bytes_total:
                bits.append(_left(spent * (bytes_total - bytes_done) / bytes_done))
        bits.append("Ctrl+C stops")
        self._draw(" · ".join(bits))

    def end(self) -> None:
        if self.on and self.width:
            self._draw("")
            self.out.write("\r")
            self.out.flush()
            self.width = 0

    def _draw(self, text: str) -> None:
        pad = max(0, self.width - len(text))
        self.out.write("\r" + text + " " * pad)
        self.out.flush()
        self.width = len(text)


@contextmanager
def interrupt_stops() -> Iterator[list[bool]]:
    """Within the block, Ctrl+C sets a flag (the returned list holds True) instead of
    raising; a second Ctrl+C raises as usual."""
    stopping: list[bool] = []

    def stop(_sig: int, _frame: FrameType | None) -> None:
        if stopping:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            raise KeyboardInterrupt
        stopping.append(True)

    try:
        previous = signal.signal(signal.SIGINT, stop)
    except ValueError:  # not the main thread: Ctrl+C is not ours to take
        yield stopping
        return
    try:
        yield stopping
    finally:
        signal.signal(signal.SIGINT, previous)
