"""The transcript's row heights: offsets and lookups agree with a plain running sum after any
sequence of changes, in a compact array whatever the path's length (V2)."""

from __future__ import annotations

import random
from bisect import bisect_right
from itertools import accumulate

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.ui.transcript.heights import BLOCK, RowHeights

heights_lists = st.lists(st.integers(0, 400), max_size=3 * BLOCK + 7)


def running(heights: list[int], spacing: int) -> list[int]:
    return list(accumulate((h + spacing for h in heights), initial=0))


def expected_row(offsets: list[int], y: int) -> int:
    return max(0, min(len(offsets) - 2, bisect_right(offsets, y) - 1))


@settings(max_examples=60, deadline=None)
@given(heights_lists, st.sampled_from([0, 8]),
       st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 400)), max_size=30),
       st.lists(st.integers(-50, 200_000), max_size=30))
def test_V2_offsets_and_row_lookups_match_a_running_sum_after_changes(
    heights: list[int], spacing: int, changes: list[tuple[int, int]], ys: list[int]
) -> None:
    rows = RowHeights(heights, spacing)
    for at, height in changes:
        if heights:
            i = at % len(heights)
            heights[i] = height
            rows[i] = height
    offsets = running(heights, spacing)
    assert rows.total == offsets[-1]
    assert [rows.offset(i) for i in range(len(heights) + 1)] == offsets
    assert rows.as_list() == heights
    if heights:
        for y in [*ys, 0, offsets[-1], offsets[-1] + 1]:
            assert rows.row_at(y) == expected_row(offsets, y)


def test_V2_a_long_path_keeps_its_heights_in_a_compact_array() -> None:
    rows = RowHeights(range(100_000), 8)
    assert rows.row_at(rows.offset(76_543)) == 76_543
    assert rows.row_at(rows.offset(76_543) - 1) == 76_542
    heights = rows.__slots__  # no per-row Python objects: one machine integer per row
    assert "_heights" in heights and rows._heights.itemsize <= 4
    rows[10] = 5
    assert rows.offset(11) == sum(range(10)) + 5 + 11 * 8


def test_an_empty_stack_has_no_height() -> None:
    rows = RowHeights((), 8)
    assert len(rows) == 0 and rows.total == 0 and rows.row_at(100) == 0


def test_V2_lookups_stay_exact_while_heights_change_all_over_a_long_path() -> None:
    """Kept running ends per block must follow every change, near or far from the viewport."""
    rng = random.Random(7)
    heights = [rng.randint(20, 300) for _ in range(20_000)]
    rows = RowHeights(heights, spacing=6)
    for _ in range(300):
        i = rng.randrange(len(heights))
        heights[i] = rng.randint(1, 500)
        rows[i] = heights[i]
        ends = list(accumulate((h + 6 for h in heights), initial=0))
        for y in (rng.randint(-10, ends[-1] + 10) for _ in range(10)):
            expected = max(0, min(bisect_right(ends, y) - 1, len(heights) - 1))
            assert rows.row_at(y) == expected
        for j in (rng.randint(0, len(heights)) for _ in range(10)):
            assert rows.offset(j) == ends[j]
    assert rows.total == ends[-1]
