"""The tidy layout: centred parents, no overlaps, stable order, no recursion on deep paths."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.tree.layout import TreeLayout, layout_ids, tidy_layout


def _children(parents: Sequence[int]) -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for i, p in enumerate(parents):
        if p >= 0:
            kids.setdefault(p, []).append(i)
    return kids


def _assert_no_overlap(lay: TreeLayout) -> None:
    rows: dict[int, list[float]] = {}
    for x, d in zip(lay.xs, lay.depths, strict=True):
        rows.setdefault(d, []).append(x)
    for xs in rows.values():
        xs.sort()
        assert all(b - a >= 1 - 1e-9 for a, b in itertools.pairwise(xs))


def _assert_ordered_and_centred(parents: Sequence[int], lay: TreeLayout) -> None:
    for p, kids in _children(parents).items():
        assert abs(lay.xs[p] - (lay.xs[kids[0]] + lay.xs[kids[-1]]) / 2) < 1e-9
        assert all(lay.xs[a] < lay.xs[b] for a, b in itertools.pairwise(kids))
        assert all(lay.depths[c] == lay.depths[p] + 1 for c in kids)


def _random_tree(n: int, seed: int) -> list[int]:
    rnd = random.Random(seed)
    return [-1] + [rnd.randrange(i) for i in range(1, n)]


def test_a_parent_is_centred_over_its_children() -> None:
    lay = tidy_layout([-1, 0, 0, 0])
    assert lay.xs.tolist() == [1.0, 0.0, 1.0, 2.0]
    assert lay.depths.tolist() == [0, 1, 1, 1]


def test_a_chain_is_one_column() -> None:
    lay = tidy_layout([-1, 0, 1, 2])
    assert set(lay.xs) == {0.0}
    assert lay.depths.tolist() == [0, 1, 2, 3]
    assert (lay.width, lay.height) == (1.0, 4)


def test_subtrees_do_not_overlap_and_keep_sibling_order() -> None:
    # 0 has children 1 and 2; each has a wide subtree that must be pushed apart.
    parents = [-1, 0, 0, 1, 1, 1, 2, 2, 2]
    lay = tidy_layout(parents)
    _assert_no_overlap(lay)
    _assert_ordered_and_centred(parents, lay)
    assert max(lay.xs[i] for i in (3, 4, 5)) < min(lay.xs[i] for i in (6, 7, 8))


def test_small_subtrees_between_large_ones_are_spread_evenly() -> None:
    # Walker's improvement: leaves between two wide subtrees share the gap equally.
    parents = [-1, 0, 0, 0, 0, 1, 1, 1, 1, 4, 4, 4, 4]
    lay = tidy_layout(parents)
    _assert_no_overlap(lay)
    gaps = [lay.xs[b] - lay.xs[a] for a, b in zip((1, 2, 3), (2, 3, 4), strict=True)]
    assert abs(gaps[0] - gaps[1]) < 1e-9 and abs(gaps[1] - gaps[2]) < 1e-9


def test_a_forest_is_laid_side_by_side_in_input_order() -> None:
    parents = [-1, 0, -1, 2, 2]
    lay = tidy_layout(parents)
    _assert_no_overlap(lay)
    assert lay.depths[0] == lay.depths[2] == 0
    assert max(lay.xs[0], lay.xs[1]) < min(lay.xs[2], lay.xs[3], lay.xs[4])
    assert min(lay.xs) == 0.0


def test_a_5000_deep_chain_lays_out_without_recursion() -> None:
    lay = tidy_layout([-1, *range(4999)])
    assert lay.height == 5000
    assert set(lay.xs) == {0.0}


def test_a_deep_chain_with_branches_lays_out() -> None:
    parents = [-1, *range(5999)]
    parents += [i * 3 for i in range(2000)]  # a side leaf at every third node
    lay = tidy_layout(parents)
    _assert_no_overlap(lay)
    _assert_ordered_and_centred(parents, lay)


def test_a_100000_node_random_tree_lays_out() -> None:
    parents = _random_tree(100_000, seed=7)
    lay = tidy_layout(parents)
    assert len(lay.xs) == len(lay.depths) == 100_000
    _assert_no_overlap(lay)
    _assert_ordered_and_centred(parents, lay)


def test_layout_is_deterministic() -> None:
    parents = _random_tree(3000, seed=3)
    a, b = tidy_layout(parents), tidy_layout(list(parents))
    assert a.xs.tobytes() == b.xs.tobytes()
    assert a.depths.tobytes() == b.depths.tobytes()


def test_empty_input_gives_an_empty_layout() -> None:
    lay = tidy_layout([])
    assert len(lay.xs) == 0 and lay.width == 0.0 and lay.height == 0


def test_cycles_and_bad_parents_are_cut_not_looped_over() -> None:
    # 0 -> 1 -> 2 -> 0 is a cycle; 3 points past the end; 4 is its own parent.
    lay = tidy_layout([2, 0, 1, 99, 4])
    assert sorted(lay.depths.tolist()) == [0, 0, 0, 1, 2]
    _assert_no_overlap(lay)


def test_layout_by_ids_treats_unknown_parents_as_roots() -> None:
    lay = layout_ids([10, 11, 12, 13], [None, 10, 10, 999])
    assert lay.depths.tolist() == [0, 1, 1, 0]
    assert lay.xs[0] == (lay.xs[1] + lay.xs[2]) / 2
    assert lay.xs[3] > lay.xs[2]


@st.composite
def forests(draw: st.DrawFn) -> list[int]:
    n = draw(st.integers(1, 80))
    return [
        -1 if i == 0 or draw(st.integers(0, 9)) == 0 else draw(st.integers(0, i - 1))
        for i in range(n)
    ]


@settings(max_examples=300, deadline=None)
@given(forests())
def test_property_no_overlap_centred_and_ordered(parents: list[int]) -> None:
    lay = tidy_layout(parents)
    _assert_no_overlap(lay)
    _assert_ordered_and_centred(parents, lay)
    assert min(lay.xs) == 0.0
    roots = [i for i, p in enumerate(parents) if p < 0]
    assert all(lay.depths[r] == 0 for r in roots)
    assert all(lay.xs[a] < lay.xs[b] for a, b in itertools.pairwise(roots))
