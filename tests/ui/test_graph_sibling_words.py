"""The words a box shows at a branch point come from a read on the task runner (V2):
painting the graph never reads the store on the main thread."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from graph_trees import paint_frame
from helpers import assistant, user
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph.item import Lod
from explorer.ui.graph.sibling_words import read_sibling_words

SHARED = "You're welcome! If you have any other questions about the garden, just ask. " * 8


@pytest.fixture
def branched(tmp_path: Path) -> Iterator[tuple[Store, int, list[int]]]:
    """A prompt answered three times: the answers share a long start and then part ways."""
    store = Store(tmp_path / "b.db")
    conv = store.create_conversation("regenerated")
    prompt = store.append_turn(conv, [user("how do I water tomatoes?")])[0]
    answers = [store.append_turn(conv, [assistant(SHARED + end)], parent_id=prompt)[0]
               for end in ("Water deeply twice a week.", "Mulch keeps them moist.",
                           "Use a drip line at the roots.")]
    yield store, conv, answers
    store.close()


@pytest.fixture
def graph(qtbot: QtBot, branched: tuple[Store, int, list[int]]) -> Iterator[TreeGraphWidget]:
    store, conv, _ = branched
    w = TreeGraphWidget(store, mode="messages")
    qtbot.addWidget(w)
    w.resize(900, 600)
    w.show()
    try:
        with qtbot.waitSignal(w.loaded, timeout=20_000):
            w.load_conversation(conv)
        yield w
    finally:
        w.shutdown()


def test_V2_box_words_at_a_branch_point_are_read_off_the_main_thread(
    qtbot: QtBot, graph: TreeGraphWidget, branched: tuple[Store, int, list[int]],
) -> None:
    store, _, answers = branched
    item = graph.view.item
    assert item is not None and item.sibling_words is not None
    statements: list[str] = []
    store.reader.set_trace_callback(statements.append)  # the main thread's reader
    try:
        graph.view.set_scale(1.0)
        graph.center_on(answers[1])
        paint_frame(graph)
        assert item.last_lod == Lod.TEXT
        first = item._text(item.model.index[answers[1]])[1]
        assert "part ways" not in first and not first.startswith("→ …"), \
            "the first frame shows the stored preview while the words are read"
        words = item.sibling_words

        def read() -> bool:
            paint_frame(graph)
            return words.cache.get(item.model.index[answers[1]]) is not None

        qtbot.waitUntil(read, timeout=10_000)
        paint_frame(graph)
    finally:
        store.reader.set_trace_callback(None)
    assert statements == [], "painting read nothing on the main thread"
    line = item._text(item.model.index[answers[1]])[1]
    assert line.startswith("…Mulch"), "the box shows where its answer parts ways"
    assert words.waiting == 0


def test_reading_sibling_words_takes_only_the_start_of_each_text(
    branched: tuple[Store, int, list[int]],
) -> None:
    store, _, answers = branched
    got = read_sibling_words(store, [((4, 5, 6), tuple(answers))], chars=len(SHARED) + 12)
    assert got == {4: "…Water deeply", 5: "…Mulch keeps", 6: "…Use a drip l"}
