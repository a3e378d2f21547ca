"""V2: the context figure keeps each costed message as a few array cells, not objects.

The panel keeps its costs while it lives, so a 100k session's 60,000-message context
must not become 60,000 objects with tuples inside (~20 MB, measured on the deep
benchmark session; ~5 MB in columns). The figure itself must not change (the
figure's equality with the plan is tested in ``test_context_figure``).
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from explorer.app.context.costs import CostTable
from explorer.app.context.figure import ContextFigure
from explorer.app.targets import build_target
from explorer.store import Store
from tests.helpers import chat_turn, tool_turn

TURNS = 300
PER_MESSAGE = 96  # bytes kept per costed message: its row, its parts and its index entry


@pytest.fixture(scope="module")
def long_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, int]:
    store = Store(tmp_path_factory.mktemp("costs") / "x.db")
    conv = store.create_conversation("long")
    store.append_turn(conv, [m for n in range(TURNS)
                             for m in (tool_turn(n) if n % 3 else chat_turn(n))])
    yield store, conv
    store.close()


def test_V2_the_context_figure_keeps_a_few_bytes_per_costed_message(
    long_store: tuple[Store, int],
) -> None:
    store, conv = long_store
    target = build_target()
    warm = ContextFigure(store)
    expected = warm.usage(conv, target).to_dict()  # imports and estimator caches warmed
    del warm
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        figure = ContextFigure(store)
        got = figure.usage(conv, target).to_dict()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert got == expected
    messages = figure.costed
    assert messages > 800
    assert kept <= PER_MESSAGE * messages + 32 * 1024, (kept, messages)


def test_V2_the_cost_table_finds_the_latest_row_of_each_message() -> None:
    table = CostTable()
    table.add(30, (1, 7), 12, 0, None, 1, [(1, 10, False)])
    table.add(10, (2, 9), 20, 85, 500, 2, [(2, 15, False), (5, 85, True)], request={"text": 3})
    assert table.row(30) == -1  # found once merged
    table.merge()
    assert table.row(30) == 0 and table.row(10) == 1 and table.row(20) == -1
    assert list(table.rows_for([10, 30])) == [1, 0]
    table.add(30, (2, 11), 14, 0, None, 1, [(1, 12, False)])  # its parts changed: a new row
    assert table.row(30) == 0 and table.signature(2) == (2, 11)
    table.merge()
    assert table.row(30) == 2 and table.row(10) == 1
    assert list(table.parts(1)) == [(2, 15, False), (5, 85, True)]
    assert table.record(1) == ({"text": 3}, None) and table.record(0) == (None, None)
    assert table.measured[0] == 0 and table.measured[1] == 500
    with pytest.raises(KeyError):
        table.rows_for([99])
