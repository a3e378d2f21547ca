"""The spine layout: the active path is one straight column, branches sit beside it, no overlaps."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.tree.layout import TreeLayout
from explorer.tree.spine_layout import spine_layout


def _path(parents: list[int], tip: int) -> list[int]:
    out = []
    while tip >= 0:
        out.append(tip)
        tip = parents[tip]
    return out[::-1]


def _assert_no_overlap(lay: TreeLayout) -> None:
    rows: dict[int, list[float]] = {}
    for x, d in zip(lay.xs, lay.depths, strict=True):
        rows.setdefault(d, []).append(x)
    for xs in rows.values():
        xs.sort()
        assert all(b - a >= 1 - 1e-9 for a, b in itertools.pairwise(xs))


def _assert_spine(parents: list[int], tip: int, lay: TreeLayout) -> None:
    spine = _path(parents, tip)
    assert [lay.xs[v] for v in spine] == [0.0] * len(spine), "the active path is column 0"
    assert [lay.depths[v] for v in spine] == list(range(len(spine)))
    off = set(range(len(parents))) - set(spine)
    assert all(lay.xs[v] >= 1.0 for v in off), "everything else beside it, never on it"
    for v, p in enumerate(parents):
        if p >= 0:
            assert lay.depths[v] == lay.depths[p] + 1


def _deep_session(n: int, seed: int, rewind: float = 0.02) -> tuple[list[int], int]:
    """Mostly linear, with rewinds: each rewind leaves the old continuation as a side branch."""
    rnd = random.Random(seed)
    parents = [-1]
    tip = 0
    for i in range(1, n):
        if rnd.random() < rewind and i > 5:
            tip = parents[tip] if parents[tip] >= 0 else tip  # back one, then grow from there
            tip = parents[tip] if parents[tip] >= 0 else tip
        parents.append(tip)
        tip = i
    return parents, tip


def test_a_deep_session_with_rewinds_is_a_straight_spine_with_short_branches() -> None:
    parents, tip = _deep_session(5000, seed=4)
    lay = spine_layout(parents, tip)
    _assert_spine(parents, tip, lay)
    _assert_no_overlap(lay)
    assert lay.width <= 6, "abandoned branches pack into a few columns beside the spine"


def test_a_branch_is_placed_next_to_the_spine_where_its_rows_are_free() -> None:
    #   0 ─ 1 ─ 2 ─ 3 (tip)
    #   └ 4 ─ 5      └ 6       two side branches at different rows share column 1
    parents = [-1, 0, 1, 2, 0, 4, 2]
    lay = spine_layout(parents, 3)
    _assert_spine(parents, 3, lay)
    assert (lay.xs[4], lay.xs[5]) == (1.0, 1.0)
    assert lay.xs[6] == 1.0 and lay.depths[6] == 3
    parents = [-1, 0, 1, 2, 0, 4, 5, 2]  # now the first branch reaches row 3: the second moves
    lay = spine_layout(parents, 3)
    assert lay.xs[7] == 2.0 and lay.depths[7] == 3
    _assert_no_overlap(lay)


def test_subtrees_off_the_spine_keep_their_tidy_shape() -> None:
    parents = [-1, 0, 1, 0, 3, 3, 4, 4, 5]  # spine 0-1-2, a subtree at 3 branching twice
    lay = spine_layout(parents, 2)
    _assert_spine(parents, 2, lay)
    assert lay.xs[3] == (lay.xs[4] + lay.xs[5]) / 2, "a side subtree's parent is centred"
    assert lay.xs[6] < lay.xs[7]
    _assert_no_overlap(lay)


def test_without_a_tip_the_layout_is_the_tidy_one() -> None:
    lay = spine_layout([-1, 0, 0], -1)
    assert lay.xs[0] == (lay.xs[1] + lay.xs[2]) / 2


def test_other_roots_and_cycles_still_get_a_place() -> None:
    parents = [-1, 0, 1, -1, 3, 6, 5]  # a second root 3-4; 5 and 6 are each other's parent
    lay = spine_layout(parents, 2)
    assert [lay.xs[v] for v in (0, 1, 2)] == [0.0, 0.0, 0.0]
    assert all(lay.xs[v] >= 1 for v in (3, 4, 5, 6))
    _assert_no_overlap(lay)


def test_a_100000_deep_path_needs_no_recursion() -> None:
    parents = [-1, *range(99_999)]
    lay = spine_layout(parents, 99_999)
    assert lay.width == 1 and lay.height == 100_000


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(0, 10_000), st.floats(0.0, 0.5))
def test_any_tree_and_tip_gives_a_spine_and_no_overlaps(n: int, seed: int, branch: float) -> None:
    rnd = random.Random(seed)
    parents = [-1] + [rnd.randrange(i) if rnd.random() < branch else i - 1 for i in range(1, n)]
    tip = rnd.randrange(n)
    lay = spine_layout(parents, tip)
    _assert_spine(parents, tip, lay)
    _assert_no_overlap(lay)
