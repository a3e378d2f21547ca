"""The context figure is cached and incremental (V2): a refresh costs what changed, no more.

A second figure on an unchanged file reads nothing but SQLite's change counter; one after
a new message reads, looks up and sums only that message; a tip moved back or to a
sibling branch takes the old tail off the kept sums; every read of a list of messages
holds at most one chunk. Each figure still equals ``planner.usage`` on the same context.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.app.context import compacting
from explorer.app.context.figure import ContextFigure
from explorer.app.context.figure_path import common_prefix
from explorer.app.targets import build_target
from explorer.compaction import planner
from explorer.compaction.target import Target
from explorer.store import Store
from tests.helpers import assistant, chat_turn, settled_conversation, user

TARGET = build_target()


def _expected(store: Store, conv: int, target: Target = TARGET) -> dict[str, Any]:
    return planner.usage(compacting.active_context(store, conv), target).to_dict()


@pytest.fixture
def session(tmp_path: Path) -> Iterator[tuple[Store, int]]:
    with Store(tmp_path / "x.db") as store:
        yield store, settled_conversation(store, 12, "figure")


class Statements:
    """The statements the calling thread's read connection runs (bound values inlined)."""

    def __init__(self, store: Store) -> None:
        self.seen: list[str] = []
        self.reader = store.reader
        self.reader.set_trace_callback(self.seen.append)

    def stop(self) -> list[str]:
        self.reader.set_trace_callback(None)
        return self.seen

    def lists(self) -> list[list[int]]:
        """Every id list a statement was given (``json_each('[...]')``)."""
        found = (re.findall(r"json_each\('(\[.*?\])'\)", s) for s in self.seen)
        return [json.loads(m) for ms in found for m in ms]


def test_V2_a_second_figure_on_an_unchanged_file_reads_nothing_again(
        session: tuple[Store, int]) -> None:
    store, conv = session
    figure = ContextFigure(store)
    first = figure.usage(conv, TARGET).to_dict()
    looked_up, checked = figure.looked_up, figure.checked_unsent
    statements = Statements(store)
    again = figure.usage(conv, TARGET).to_dict()
    assert statements.stop() == ["PRAGMA data_version"], "only the change counter is read"
    assert again == first == _expected(store, conv)
    assert (figure.looked_up, figure.checked_unsent) == (looked_up, checked)
    assert figure.length == len(figure.context_ids(conv))


def test_V2_a_figure_after_a_new_message_reads_and_sums_only_that_message(
        session: tuple[Store, int]) -> None:
    store, conv = session
    figure = ContextFigure(store)
    figure.usage(conv, TARGET)
    costed, looked_up, checked = figure.costed, figure.looked_up, figure.checked_unsent
    store.append_turn(conv, [user("one more"), assistant("and its answer " * 20)])
    statements = Statements(store)
    grown = figure.usage(conv, TARGET).to_dict()
    statements.stop()
    assert grown == _expected(store, conv)
    assert figure.costed - costed == 2
    assert figure.looked_up - looked_up == 2, "the kept messages were not looked up again"
    assert figure.checked_unsent - checked == 2
    assert all(len(ids) <= 2 for ids in statements.lists()), statements.lists()


def test_V2_a_tip_moved_back_or_to_a_sibling_takes_the_old_tail_off(
        session: tuple[Store, int]) -> None:
    store, conv = session
    figure = ContextFigure(store)
    path = store.path_ids(store.conversation(conv).tip_id)
    figure.usage(conv, TARGET)
    store.branch(conv, path[-7])  # back: a prefix of the kept path
    assert figure.usage(conv, TARGET).to_dict() == _expected(store, conv)
    store.append_turn(conv, [user("another way"), assistant("a sibling answer " * 9)])
    looked_up = figure.looked_up
    assert figure.usage(conv, TARGET).to_dict() == _expected(store, conv)
    assert figure.looked_up - looked_up == 2  # only the sibling branch's own messages
    store.branch(conv, path[-1])  # and forward again to the first tip
    assert figure.usage(conv, TARGET).to_dict() == _expected(store, conv)


def test_V2_a_grown_message_far_back_is_costed_again_and_the_sums_follow(
        session: tuple[Store, int]) -> None:
    store, conv = session
    figure = ContextFigure(store)
    before = figure.usage(conv, TARGET)
    early = store.path_ids(store.conversation(conv).tip_id)[3]
    store.transact(lambda c: c.execute(
        "INSERT INTO parts(message_id, idx, kind, text) VALUES (?, 9, 'text', ?)",
        (early, "a block the sync added later " * 40)))
    after = figure.usage(conv, TARGET)
    assert after.to_dict() == _expected(store, conv)
    assert after.estimated_total > before.estimated_total


def test_V2_a_change_in_another_conversation_keeps_the_kept_sums(
        session: tuple[Store, int]) -> None:
    store, conv = session
    other = store.create_conversation("other")
    store.append_turn(other, chat_turn(1))
    figure = ContextFigure(store)
    figure.usage(other, TARGET)  # the other's messages are costed: later changes mark them
    first = figure.usage(conv, TARGET).to_dict()
    store.append_turn(other, chat_turn(2))
    store.transact(lambda c: c.execute(  # and one of its costed messages grows
        "INSERT INTO parts(message_id, idx, kind, text) VALUES (?, 5, 'text', 'more')",
        (store.path_ids(store.conversation(other).tip_id)[0],)))
    looked_up = figure.looked_up
    assert figure.usage(conv, TARGET).to_dict() == first == _expected(store, conv)
    assert figure.looked_up == looked_up
    assert figure.usage(other, TARGET).to_dict() == _expected(store, other)


def test_V2_the_figure_reads_messages_in_bounded_chunks(
        session: tuple[Store, int], monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.app.context import figure as context_figure

    monkeypatch.setattr(context_figure, "CHUNK", 5)
    store, conv = session
    statements = Statements(store)
    figure = ContextFigure(store)
    got = figure.usage(conv, TARGET).to_dict()
    statements.stop()
    assert got == _expected(store, conv)
    lists = statements.lists()
    length = len(figure.context_ids(conv))
    assert length > 5 and lists
    assert max(len(ids) for ids in lists) <= 5, "a read held more than one chunk of ids"
    assert sum(len(ids) for ids in lists) >= 2 * length  # not-sent marks, then the costs


@pytest.mark.parametrize(("a", "b", "same"), [
    ([], [1], 0), ([1, 2, 3], [1, 2, 3], 3), ([1, 2, 3], [1, 2], 2), ([1, 2, 3], [1, 2, 9], 2),
    ([1, 2, 3, 4, 5, 6], [1, 7, 8, 9, 10, 11], 1), ([1], [2], 0),
    (list(range(1000)), [*range(613), *range(5000, 5400)], 613),
])
def test_common_prefix_of_two_tree_paths(a: list[int], b: list[int], same: int) -> None:
    assert common_prefix(a, b) == same == common_prefix(b, a)


@pytest.mark.parametrize("order", ["rising", "few again", "many unordered"])
def test_the_kept_costs_find_each_message_s_latest_row_after_a_merge(order: str) -> None:
    from explorer.app.context.costs import FEW, CostTable

    table = CostTable()
    first = list(range(10, 2000, 3))
    for mid in first:
        table.add(mid, (1, mid), 5, 0, None, 0, [])
    table.merge()
    more = {"rising": list(range(2000, 2100)), "few again": [*first[5:9], 11, 2500],
            "many unordered": list(range(FEW * 3, 0, -2))}[order]
    for mid in more:
        table.add(mid, (1, mid), 7, 0, None, 0, [])
    table.merge()
    latest = {mid: row for row, mid in enumerate(table.ids)}  # a later row wins
    assert all(table.row(mid) == row for mid, row in latest.items())
    assert table.row(1) == table.row(3) == -1


def test_V2_the_kept_figure_serves_a_refresh_made_on_another_thread(
        session: tuple[Store, int]) -> None:
    """The panel's worker may be a new pool thread (a connection of its own) each time."""
    import threading

    store, conv = session
    figure = ContextFigure(store)
    first = figure.usage(conv, TARGET).to_dict()
    looked_up = figure.looked_up
    got: list[dict[str, Any]] = []
    for _ in range(2):
        worker = threading.Thread(target=lambda: got.append(figure.usage(conv, TARGET).to_dict()))
        worker.start()
        worker.join()
    assert got == [first, first] and figure.looked_up == looked_up
    store.append_turn(conv, chat_turn(99))
    worker = threading.Thread(target=lambda: got.append(figure.usage(conv, TARGET).to_dict()))
    worker.start()
    worker.join()
    assert figure.looked_up == looked_up + 2 and got[-1] == _expected(store, conv)


def test_V2_a_grown_message_off_the_path_is_costed_again_once_a_path_takes_it_in(
        session: tuple[Store, int]) -> None:
    store, conv = session
    figure = ContextFigure(store)
    path = store.path_ids(store.conversation(conv).tip_id)
    store.branch(conv, path[-5])
    sibling = store.append_turn(conv, [user("a sibling way"), assistant("its answer " * 5)])
    figure.usage(conv, TARGET)  # the sibling's messages are costed
    store.branch(conv, path[-1])
    figure.usage(conv, TARGET)
    store.transact(lambda c: c.execute(  # the sibling's answer grows while off the path
        "INSERT INTO parts(message_id, idx, kind, text) VALUES (?, 4, 'text', ?)",
        (sibling[-1], "a late block " * 60)))
    looked_up = figure.looked_up
    assert figure.usage(conv, TARGET).to_dict() == _expected(store, conv)
    assert figure.looked_up == looked_up  # nothing on this path changed
    store.branch(conv, sibling[-1])
    assert figure.usage(conv, TARGET).to_dict() == _expected(store, conv)
