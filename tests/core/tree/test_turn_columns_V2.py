"""V2: a big conversation's turn projection is a few columns, not an object per turn.

A 100,000-message session is opened in the window with its turn projection kept
for as long as it is shown; held as objects (a ``Turn`` with lists and label
strings per turn, a node object per view node) it cost ~100 MB. These tests build
a 20,000-message tree with branches, tool loops and subagents and check what the
projection keeps: arrays, one label buffer and small dicts, with a memory bound
per turn taken from the arrays' own sizes.
"""

from __future__ import annotations

import gc
import tracemalloc
from array import array

from turn_sessions import deep_session as _session

from explorer.tree.columns import IdIndex, Lazy, TextColumn, csr, id_column
from explorer.tree.turn_grouping import group_turns
from explorer.tree.turn_runs import TurnProjection, collapse_runs
from explorer.tree.turn_view import TurnTree

PER_TURN_SLACK = 8  # bytes a turn may cost beyond the columns' own (list over-allocation)


def _retained(build: object) -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_V2_the_turn_projection_of_20k_messages_holds_columns_not_objects_per_turn() -> None:
    messages = _session()
    gc.collect()
    tracemalloc.start()
    try:
        before = _retained(None)
        proj = collapse_runs(group_turns(messages))
        after = _retained(proj)
    finally:
        tracemalloc.stop()
    tree = proj.tree
    turns = len(tree)
    assert turns > 4000 and 500 < len(proj) < turns  # many turns, runs folded
    columns = tree.nbytes() + proj.nbytes()
    kept = after - before
    # Everything kept is the columns themselves, plus a few bytes a turn of slack: one
    # object per turn (~56 bytes at the least) or one label string (~50) would break it.
    assert kept <= columns + PER_TURN_SLACK * turns + 64 * 1024, (kept, columns, turns)
    assert kept >= columns * 0.9  # the bound measures what the projection really holds


def _kinds(obj: object) -> dict[str, type]:
    return {k: type(v) for k, v in vars(obj).items()}


def test_V2_the_turn_tree_and_projection_keep_only_arrays_buffers_and_sparse_maps() -> None:
    messages = _session(4000)
    proj = collapse_runs(group_turns(messages))
    tree = proj.tree
    allowed = (array, bytes, bytearray, TextColumn, IdIndex)
    small = (dict, list)  # subagents, roots and names: a handful, not one per turn
    for owner in (tree, proj):
        for name, value in vars(owner).items():
            if isinstance(value, allowed) or value is tree:
                continue
            assert isinstance(value, small), (name, type(value))
            assert len(value) < len(tree) // 20, (name, len(value))
    assert isinstance(tree.order, array) and isinstance(tree.turn_of, IdIndex)


def test_V2_turns_read_from_columns_match_what_the_messages_say() -> None:
    messages = _session(3000)
    by_id = {m.id: m for m in messages}
    proj = collapse_runs(group_turns(messages))
    tree = proj.tree
    for turn in tree.turns:
        ms = turn.messages
        assert turn.head == ms[0] and turn.tail == ms[-1]
        assert turn.tool_calls == sum(by_id[m].tool_calls for m in ms)
        assert turn.tool_errors == sum(by_id[m].tool_errors for m in ms)
        assert sum(turn.tools.values()) == turn.tool_calls
        assert all(tree.turn_of[m] == turn.index for m in ms)
        head = by_id[ms[0]]
        if head.prompt:
            assert turn.prompt == " ".join(head.preview.split())
        answers = [by_id[m].preview for m in ms if by_id[m].role == "assistant"
                   and by_id[m].has_text]
        assert turn.answer == (answers[-1] if answers else "")
        models = [by_id[m].model for m in ms if by_id[m].model]
        assert (turn.first_model, turn.last_model) == (
            (models[0], models[-1]) if models else (None, None))
    for i in range(len(proj)):
        node = proj.nodes[i]
        assert node.index == i and node.turns == list(proj.node_turns(i))
        assert proj.messages(i)[0] == proj.head(i) and proj.messages(i)[-1] == proj.tail(i)
        assert proj.message_count(i) == len(proj.messages(i))


def test_columns_store_and_find_what_they_were_given() -> None:
    text = TextColumn(["", "plain", "…unicode ✓", "x" * 300]).freeze()
    assert list(text) == ["", "plain", "…unicode ✓", "x" * 300] and text[-1] == "x" * 300
    assert text.startswith(2, "…uni") and not text.startswith(0, "a")
    ids = id_column([30, 10, 20])
    assert isinstance(ids, array) and list(ids) == [30, 10, 20]
    assert id_column(["a", 1]) == ["a", 1]  # not all integers: a list
    index = IdIndex(ids, [0, 1, 2])
    assert (index[10], index[20], index[30], index.get(15, -1)) == (1, 2, 0, -1)
    assert 30 in index and 31 not in index and "x" not in index and len(index) == 3
    mixed = IdIndex(["gone", 5], [7, 8])
    assert (mixed["gone"], mixed[5], sorted(map(str, mixed))) == (7, 8, ["5", "gone"])
    lazy = Lazy(3, lambda i: i * i)
    assert list(lazy) == [0, 1, 4] and lazy[-1] == 4 and lazy[1:] == [1, 4]
    start, items = csr([-1, 0, 0, 1, -1, 4], keep=lambda i: i != 2)
    assert list(items[start[0]:start[1]]) == [1] and list(items[start[4]:start[5]]) == [5]


def test_an_empty_forest_projects_to_nothing() -> None:
    proj: TurnProjection = collapse_runs(group_turns([]))
    tree: TurnTree = proj.tree
    assert len(tree) == 0 and len(proj) == 0 and list(proj.nodes) == []
    assert list(tree.turns) == [] and tree.turn_of.get(1) is None


def test_V2_an_index_over_sorted_ids_finds_by_offset_or_bisection_as_a_dict_would() -> None:
    dense = IdIndex.from_sorted(array("q", range(100, 110)), array("i", range(10)))
    sparse = IdIndex.from_sorted(array("q", [2, 5, 9, 40]), array("i", [7, 6, 5, 4]))
    assert dict(dense) == {100 + k: k for k in range(10)}
    assert dict(sparse) == {2: 7, 5: 6, 9: 5, 40: 4}
    for index in (dense, sparse):
        for key in (-1, 0, 1, 99, 110, 41, "x"):
            assert key not in index and index.get(key) is None
    assert dense[109] == 9 and sparse[40] == 4


def test_V2_children_offsets_list_each_nodes_children_in_order() -> None:
    parents = array("i", [-1, 0, 0, 1, -1, 4, 1, 0])
    starts, items = csr(parents)
    assert [list(items[starts[p]:starts[p + 1]]) for p in range(8)] == [
        [1, 2, 7], [3, 6], [], [], [5], [], [], []]
    starts, items = csr(parents, lambda i: i != 2)
    assert list(items[starts[0]:starts[1]]) == [1, 7] and len(starts) == 9


def test_V2_a_text_column_made_at_once_reads_as_the_strings() -> None:
    words = ["", "turn", "ünïcode ✓", "", "a" * 70]
    column = TextColumn.of(words)
    assert list(column) == words and column.nbytes() == len("".join(words).encode()) + 20
    assert column.startswith(2, "ünï") and not column.startswith(0, "x")
