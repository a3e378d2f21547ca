"""The pure tending rules: subtrees, folding, ◀ ▶ counts, preferred paths (T6, T7)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.tree.tending import (
    TendingError,
    check_checkpoints,
    check_off_path,
    children_of,
    hidden_by_archive,
    preferred_choices,
    preferred_leaf,
    sibling_place,
    subtree,
)

SHAPES = st.lists(st.integers(0, 1000), min_size=0, max_size=30)


def _parents(shape: list[int]) -> dict[int, int | None]:
    parents: dict[int, int | None] = {0: None}
    for i, pick in enumerate(shape, start=1):
        parents[i] = pick % i
    return parents


@given(SHAPES, st.integers(0, 1000))
def test_T7_a_subtree_is_its_root_and_every_descendant(shape: list[int], pick: int) -> None:
    parents = _parents(shape)
    root = pick % len(parents)
    below = subtree(children_of(parents), root)

    def descends(m: int) -> bool:
        node: int | None = m
        while node is not None:
            if node == root:
                return True
            node = parents[node]
        return False

    assert below[0] == root
    assert set(below) == {m for m in parents if descends(m)}
    assert all(parents[m] in below[: i] for i, m in enumerate(below) if i)


@given(SHAPES, st.lists(st.integers(0, 1000), max_size=4))
def test_T6_folding_never_hides_what_is_not_under_an_archived_root(
    shape: list[int], picks: list[int]
) -> None:
    parents = _parents(shape)
    children = children_of(parents)
    roots = {p % len(parents) for p in picks}
    hidden = hidden_by_archive(children, roots)
    assert hidden == set().union(*(subtree(children, r) for r in roots))
    leaf = preferred_leaf(children, None, set(), hidden)
    assert leaf is None or leaf not in hidden


def test_T6_sibling_counts_leave_out_archived_alternatives_but_say_so() -> None:
    assert sibling_place([4, 7, 9], 9, {7}).text() == "2/2 · 1 archived"
    assert sibling_place([4, 7, 9], 7, {7}).text() == "2/3"  # the one shown always counts
    assert sibling_place([4, 7, 9], 4, set()).text() == "1/3"


def test_T6_T7_refusals_name_the_reason() -> None:
    with pytest.raises(TendingError, match="message 3 is on the active path"):
        check_off_path(3, {1, 2, 3}, "deleting")
    with pytest.raises(TendingError, match="'done' \\(message 5\\)"):
        check_checkpoints({4, 5}, {"done": 5, "other": 1}, with_checkpoints=False)
    assert check_checkpoints({4, 5}, {"done": 5}, with_checkpoints=True) == ["done"]


def test_star_prefers_the_path_at_every_branch_point_and_is_followed() -> None:
    parents: dict[int, int | None] = {1: None, 2: 1, 3: 1, 4: 3, 5: 4, 6: 4, 7: None}
    children = children_of(parents)
    assert preferred_choices([1, 3, 4, 5], children) == {None: 1, 1: 3, 4: 5}
    assert preferred_leaf(children, None, {1, 3, 5}) == 5
    assert preferred_leaf(children, None, set()) == 7  # unstarred: the newest branch
