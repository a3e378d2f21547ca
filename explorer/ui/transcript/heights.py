"""Every row's height and where each row starts, for a path of any length.

The virtual transcript needs, on every scroll step, the row at a given y and
the y of a given row, and it learns real heights one card at a time. A flat
list of running offsets answers both by bisection but has to be rebuilt
whole (80,000 additions) each time one card is measured, which made a scroll
step on a long path cost tens of milliseconds. Here heights live in a compact
integer array grouped in blocks, each block keeping its sum: changing one
height touches one block sum, and finding a row or an offset costs a
bisection over the blocks plus one within the block, whose running ends are
kept for the blocks a scroll visits. Pure Python (no Qt),
so it is built off the main thread with the rest of the skeleton.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate, repeat
from operator import add

BLOCK = 256
"""Rows per block: a change costs one block's sum, a lookup two bisections."""
KEPT_BLOCKS = 64
"""Blocks whose running ends are kept (those a scroll visits; the rest are made again)."""


class RowHeights:
    """Row heights (pixels) and their offsets, each row followed by ``spacing`` pixels.

    ``offset(i)`` is the sum of ``height + spacing`` over the rows before ``i``,
    so ``offset(len(self))`` is the height of the whole stack.
    """

    __slots__ = ("_dirty_from", "_ends", "_heights", "_starts", "_sums", "spacing")

    def __init__(self, heights: Iterable[int] = (), spacing: int = 0) -> None:
        self.spacing = spacing
        self._heights = array("i", heights)
        n = len(self._heights)
        self._sums = array("q", (sum(self._heights[b:b + BLOCK]) + spacing * min(BLOCK, n - b)
                                 for b in range(0, n, BLOCK)))
        self._starts = array("q", [0])
        self._dirty_from = 0
        self._ends: dict[int, array[int]] = {}  # by block: its rows' running ends, kept
        # for the few blocks near the viewport, so a lookup there is two bisections
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
        self._ends.pop(block, None)

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
        block, within = divmod(i, BLOCK)
        starts = self._block_starts()
        return starts[block] + (self._block_ends(block)[within - 1] if within else 0)

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
        ends = self._block_ends(block)
        inside = bisect_right(ends, y - starts[block])  # the block's rows ending at or above y
        return block * BLOCK + min(inside, len(ends) - 1)

    def _block_ends(self, block: int) -> array[int]:
        """Where each row of ``block`` ends (with its spacing), from the block's top."""
        ends = self._ends.get(block)
        if ends is None:
            if len(self._ends) >= KEPT_BLOCKS:
                self._ends.pop(next(iter(self._ends)))  # the oldest: far from the viewport
            first = block * BLOCK
            rows = self._heights[first:first + BLOCK]
            ends = self._ends[block] = array("q", accumulate(map(add, rows,
                                                                   repeat(self.spacing))))
        return ends
