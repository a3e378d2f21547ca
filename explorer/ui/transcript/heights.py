"""Every row's height and where each row starts, for a path of any length.

The virtual transcript needs, on every scroll step, the row at a given y and
the y of a given row, and it learns real heights one card at a time. A flat
list of running offsets answers both by bisection but has to be rebuilt
whole (80,000 additions) each time one card is measured, which made a scroll
step on a long path cost tens of milliseconds. Here heights live in a compact
integer array grouped in blocks, each block keeping its sum: changing one
height touches one block sum, and finding a row or an offset costs a
bisection over the blocks plus a sum within one block. Pure Python (no Qt),
so it is built off the main thread with the rest of the skeleton.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate

BLOCK = 256
"""Rows per block: a change costs one block's sum, a lookup one block's scan."""


class RowHeights:
    """Row heights (pixels) and their offsets, each row followed by ``spacing`` pixels.

    ``offset(i)`` is the sum of ``height + spacing`` over the rows before ``i``,
    so ``offset(len(self))`` is the height of the whole stack.
    """

    __slots__ = ("_dirty_from", "_heights", "_starts", "_sums", "spacing")

    def __init__(self, heights: Iterable[int] = (), spacing: int = 0) -> None:
        self.spacing = spacing
        self._heights = array("i", heights)
        n = len(self._heights)
        self._sums = array("q", (sum(self._heights[b:b + BLOCK]) + spacing * min(BLOCK, n - b)
                                 for b in range(0, n, BLOCK)))
        self._starts = array("q", [0])
        self._dirty_from = 0

    def __len__(self) -> int:
        return len(self._heights)

    def __getitem__(self, i: int) -> int:
        return self._heights[i]

    def __setitem__(self, i: int, height: int) -> None:
        old = self._heights[i]
        if old == height:
            return
        self._heights[i] = height
        block = i // BLOCK
        self._sums[block] += height - old
        self._dirty_from = min(self._dirty_from, block + 1)

    def as_list(self) -> list[int]:
        return self._heights.tolist()

    def _block_starts(self) -> array[int]:
        """Offsets of each block's first row, and the total last; refreshed from the first
        block a change made stale (a few hundred additions at most)."""
        n = len(self._sums) + 1
        valid = max(1, min(self._dirty_from, len(self._starts)))
        if valid < n or len(self._starts) != n:
            del self._starts[valid:]
            self._starts.extend(accumulate(self._sums[valid - 1:], initial=self._starts[-1]))
            del self._starts[valid]  # accumulate repeats its seed first
            self._dirty_from = n
        return self._starts

    def offset(self, i: int) -> int:
        """The top of row ``i`` (``len(self)`` gives the total)."""
        i = max(0, min(i, len(self._heights)))
        block = i // BLOCK
        starts = self._block_starts()
        first = block * BLOCK
        return starts[block] + sum(self._heights[first:i]) + self.spacing * (i - first)

    @property
    def total(self) -> int:
        return self._block_starts()[-1]

    def row_at(self, y: int) -> int:
        """The row whose span (height and the spacing after it) holds ``y``, clamped to the rows."""
        n = len(self._heights)
        if n == 0:
            return 0
        starts = self._block_starts()
        block = max(0, min(bisect_right(starts, y) - 1, len(self._sums) - 1))
        top = starts[block]
        row = block * BLOCK
        last = min(row + BLOCK, n) - 1
        while row < last:
            top += self._heights[row] + self.spacing
            if top > y:
                break
            row += 1
        return row
