"""The conversation list: counts from the store, filtering, the three sorts, quiet selection."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import chat_turn
from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QColor
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.formats.registry import formats
from explorer.store import Store
from explorer.store.reads import Conversation
from explorer.ui.window.conversations import (
    COUNT_ROLE,
    FORKED_FROM_ROLE,
    ID_ROLE,
    SUBTITLE_ROLE,
    ConversationList,
)
from explorer.ui.window.format_badges import BADGES, format_icon, format_name


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """The demo plus three conversations of different sizes and titles."""
    s = Store(tmp_path / "x.db")
    load_demo(s)
    for title, turns in (("alpha notes", 2), ("Beta plan", 1), ("gamma", 0)):
        cid = s.create_conversation(title, source_format="claude_code")
        for n in range(turns):
            s.append_turn(cid, chat_turn(n))
    yield s
    s.close()


@pytest.fixture
def widget(qtbot: QtBot, store: Store) -> Iterator[ConversationList]:
    w = ConversationList(store)
    qtbot.addWidget(w)
    w.resize(360, 500)
    w.show()
    yield w
    assert [t for t in w.findChildren(QTimer) if t.isActive()] == []


def visible_ids(w: ConversationList) -> list[int]:
    return [int(w.proxy.index(r, 0).data(ID_ROLE)) for r in range(w.proxy.rowCount())]


def test_the_list_shows_every_conversation_with_its_message_count(
    widget: ConversationList, store: Store
) -> None:
    convs = {c.id: c for c in store.conversations()}
    model = widget.model
    assert model.rowCount() == len(convs) == 5
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        conv = convs[int(index.data(ID_ROLE))]
        assert index.data() == conv.title
        assert index.data(COUNT_ROLE) == conv.message_count
        assert f"{conv.message_count} message" in index.data(SUBTITLE_ROLE)
    demo_main = next(c for c in convs.values() if c.title.startswith("Nightly orders"))
    assert demo_main.message_count == 24
    fork = next(c for c in convs.values() if c.forked_from_conversation_id is not None)
    fork_index = model.index(model.row_of(fork.id) or 0, 0)
    assert fork_index.data(FORKED_FROM_ROLE) == demo_main.title
    assert f"fork of {demo_main.title}" in fork_index.data(SUBTITLE_ROLE)
    assert not widget.grab().isNull()  # paints the two-line rows with their badges


def test_models_pass_the_model_tester(
    widget: ConversationList, qtmodeltester: ModelTester
) -> None:
    qtmodeltester.check(widget.model)
    widget.search.setText("a")
    widget.set_sort("size")
    qtmodeltester.check(widget.proxy)


def test_typing_filters_on_the_title_case_insensitively(
    widget: ConversationList, store: Store
) -> None:
    widget.search.setText("ORDERS")
    expected = {c.id for c in store.conversations() if "orders" in c.title.casefold()}
    assert set(visible_ids(widget)) == expected and len(expected) == 2
    widget.search.setText("beta")
    assert [widget.proxy.index(0, 0).data()] == ["Beta plan"] and widget.proxy.rowCount() == 1
    widget.search.clear()
    assert widget.proxy.rowCount() == len(store.conversations())


def by_date(c: Conversation) -> tuple[float, int]:
    return (c.updated_at or c.created_at or 0.0, c.id)


@pytest.mark.parametrize("key, order", [
    ("date", lambda cs: sorted(cs, key=by_date, reverse=True)),
    ("title", lambda cs: sorted(cs, key=lambda c: (c.title.casefold(), -c.id))),
    ("size", lambda cs: sorted(cs, key=lambda c: (c.message_count, c.id), reverse=True)),
])
def test_each_sort_order(widget: ConversationList, store: Store, key: str, order: object) -> None:
    widget.set_sort(key)
    assert widget.proxy.sort_key == key
    expected = [c.id for c in order(store.conversations())]  # type: ignore[operator]
    assert visible_ids(widget) == expected


def test_sizes_sort_largest_first(widget: ConversationList) -> None:
    widget.set_sort("size")
    counts = [widget.proxy.index(r, 0).data(COUNT_ROLE) for r in range(widget.proxy.rowCount())]
    assert counts == sorted(counts, reverse=True) and counts[0] == 24 and counts[-1] == 0


def test_a_click_announces_the_choice_and_select_is_quiet(
    qtbot: QtBot, widget: ConversationList, store: Store
) -> None:
    chosen: list[int] = []
    widget.conversationChosen.connect(chosen.append)
    second = widget.proxy.index(1, 0)
    rect = widget.view.visualRect(second)
    qtbot.mouseClick(widget.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert chosen == [int(second.data(ID_ROLE))] and widget.current() == chosen[0]
    gamma = next(c.id for c in store.conversations() if c.title == "gamma")
    assert widget.select(gamma) and widget.current() == gamma and chosen == [chosen[0]]
    assert widget.select(chosen[0], announce=True) and chosen[-1] == chosen[0]
    assert len(chosen) == 2
    assert not widget.select(99999)


def test_filtering_hides_rows_but_never_changes_the_choice(
    widget: ConversationList, store: Store
) -> None:
    chosen: list[int] = []
    widget.conversationChosen.connect(chosen.append)
    gamma = next(c.id for c in store.conversations() if c.title == "gamma")
    widget.select(gamma)
    widget.search.setText("orders")
    assert gamma not in visible_ids(widget)
    assert widget.current() == gamma and chosen == []
    assert not widget.view.selectionModel().hasSelection()
    widget.search.clear()
    selected = widget.view.selectionModel().selectedIndexes()
    assert [int(i.data(ID_ROLE)) for i in selected] == [gamma]


def test_select_clears_a_filter_that_hides_the_conversation(
    widget: ConversationList, store: Store
) -> None:
    gamma = next(c.id for c in store.conversations() if c.title == "gamma")
    widget.search.setText("orders")
    assert widget.select(gamma)
    assert widget.search.text() == "" and gamma in visible_ids(widget)


def test_reload_shows_new_conversations_and_keeps_the_choice(
    widget: ConversationList, store: Store
) -> None:
    first = visible_ids(widget)[0]
    widget.select(first)
    new = store.create_conversation("delta")
    widget.reload()
    assert new in visible_ids(widget) and widget.current() == first
    sm = widget.view.selectionModel()
    assert int(sm.currentIndex().data(ID_ROLE)) == first
    sm.setCurrentIndex(widget.proxy.index(0, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect)
    assert widget.current() == int(widget.proxy.index(0, 0).data(ID_ROLE))


def test_each_format_gets_its_own_coloured_badge(qtbot: QtBot) -> None:
    assert set(formats()) <= set(BADGES)  # every format read has a badge and a name
    assert all(format_name(fmt) == formats()[fmt].title != "" for fmt in formats())
    for fmt, (_letters, colour) in BADGES.items():
        image = format_icon(fmt).pixmap(32, 32).toImage()
        assert not image.isNull()
        # Just inside the rounded corner, away from the letters: the badge colour.
        pixel = image.pixelColor(image.width() // 2, 3 * image.height() // 32 + 1)
        assert pixel.name() == QColor(colour).name(), fmt
    assert format_icon("chatgpt").cacheKey() != format_icon("claude_code").cacheKey()


def test_the_filter_keeps_the_titles_that_hold_the_text_and_follows_new_rows(
        qtbot: QtBot, widget: ConversationList, store: Store) -> None:
    """One pass over the case-folded titles decides; an import that adds rows is filtered
    by the same text at once (the kept rows are found again, not left pointing elsewhere)."""
    for n in range(40):
        store.create_conversation(f"Session {n} about Parsers" if n % 7 == 0 else f"note {n}")
    widget.reload()
    widget.search.setText("parsers")
    shown = {widget.model.conversation(widget.proxy.mapToSource(widget.proxy.index(r, 0)).row())
             .display_title for r in range(widget.proxy.rowCount())}
    assert shown == {f"Session {n} about Parsers" for n in range(0, 40, 7)}
    store.create_conversation("More PARSERS")
    widget.reload()
    titles = {widget.proxy.index(r, 0).data() for r in range(widget.proxy.rowCount())}
    assert "More PARSERS" in titles and len(titles) == len(shown) + 1
    ModelTester(qtbot).check(widget.proxy)
