"""The compare window says what it shows: which column is active after Make active, which
conversation it compares after a fork, and images as pictures, not placeholders."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.ui.compare.window import CompareWindow


@pytest.fixture(autouse=True)
def _close_compare_windows() -> Iterator[None]:
    """A compare window outlives the main window's test; closed, it reads no closed store."""
    yield
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, CompareWindow):
            widget.close()


def _open(qtbot: QtBot, window: Any, mid: int) -> CompareWindow:
    window.compares.compare(mid)
    cmp = window.compares.window
    assert isinstance(cmp, CompareWindow)
    qtbot.waitExposed(cmp)
    return cmp


def test_make_active_moves_the_active_branch_in_the_summary_too(
        qtbot: QtBot, window: Any) -> None:
    store = window.store
    tip = store.conversation(1).tip_id
    cmp = _open(qtbot, window, tip)
    assert cmp.comparison is not None
    active = cmp.comparison.active
    assert active is not None and cmp.headers[active].active
    other = 1 - active
    assert ("(the active branch)" in cmp.status.text()) == (cmp.comparison.base == active)
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        qtbot.mouseClick(cmp.headers[other].make_active_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: cmp.headers[other].active, timeout=5000)
    assert not cmp.headers[active].active
    assert cmp.comparison.active == other
    assert ("(the active branch)" in cmp.status.text()) == (cmp.comparison.base == other)


def test_a_fork_from_compare_says_which_conversation_each_window_shows(
        qtbot: QtBot, window: Any) -> None:
    cmp = _open(qtbot, window, window.store.conversation(1).tip_id)
    assert "(conversation 1)" in cmp.windowTitle()
    cmp.ask_fork_title = lambda suggested: "forked answer"  # type: ignore[method-assign]
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        qtbot.mouseClick(cmp.headers[0].fork_button, Qt.MouseButton.LeftButton)
    new = window.conversation_id
    assert new != 1
    said = cmp.status.text()
    assert f"conversation {new}, which the main window now shows" in said
    assert "this window still compares conversation 1" in said


def test_an_image_in_a_compared_turn_shows_as_a_thumbnail(qtbot: QtBot, window: Any) -> None:
    store = window.store
    with_image = next(n.id for n in store.skeleton(1)
                      if any(p.kind == "image" for p in store.message(n.id).parts))
    cmp = _open(qtbot, window, with_image)
    thumbs = [img for row in cmp.cells for cell in row for img in cell.images]
    assert thumbs, "the image is drawn, not named"
    pixmap = thumbs[0].pixmap()
    assert not pixmap.isNull() and 0 < pixmap.width() <= 320 and pixmap.height() <= 200
    assert "image, " in thumbs[0].toolTip()


def test_a_closed_compare_window_waits_for_its_next_show_to_take_a_new_theme(
        qtbot: QtBot, window: Any) -> None:
    """Closed, it reads nothing (its store may be closed by then); shown again, it is
    rebuilt in the new colours."""
    from explorer.ui.theme import apply_theme

    cmp = _open(qtbot, window, window.store.conversation(1).tip_id)
    cmp.close()
    rebuilt: list[int] = []
    original = cmp._rebuild
    cmp._rebuild = lambda: (rebuilt.append(1), original())  # type: ignore[method-assign]
    apply_theme("dark")
    try:
        qtbot.wait(20)
        assert rebuilt == []
        cmp.show()
        qtbot.waitExposed(cmp)
        assert rebuilt == [1]
    finally:
        cmp.close()
        apply_theme("system")


def test_C5_each_column_says_what_its_own_branch_cost(qtbot: QtBot, window: Any) -> None:
    from explorer.app.costs.report import cost_report
    from explorer.app.costs.words import cost_words

    cmp = _open(qtbot, window, window.store.conversation(1).tip_id)
    assert cmp.comparison is not None
    qtbot.waitUntil(lambda: all(h.cost_label.text() for h in cmp.headers), timeout=10_000)
    report = cost_report(window.store, 1)
    for header, column in zip(cmp.headers, cmp.comparison.columns, strict=True):
        assert header.cost_label.text() == f"own {cost_words(report.tally(column.message_ids))}"


def test_C5_the_files_tab_shows_what_each_branch_did_to_files(
        qtbot: QtBot, window: Any) -> None:
    """The edited prompt's branch edited jobs/import_orders.py; the other branch did not."""
    store = window.store
    [edited] = [n.id for n in store.skeleton(1)
                if store.message(n.id).source_meta.get("edited_from")]
    cmp = _open(qtbot, window, edited)
    assert cmp.files.toPlainText() == ""  # read only when the tab is shown
    cmp.tabs.setCurrentWidget(cmp.files)
    qtbot.waitUntil(lambda: "import_orders.py" in cmp.files.toPlainText(), timeout=10_000)
    text = cmp.files.toPlainText()
    assert text.startswith("branches: 1 = path to ")


def test_C5_a_conversation_whose_agent_wrote_files_gets_a_files_tab(
        qtbot: QtBot, window: Any) -> None:
    """The demo's agent edited jobs/import_orders.py: the transcript offers Files, which
    reads the active path's effects when shown; a plain chat gets no such tab."""
    tabs = window.transcript_tabs
    qtbot.waitUntil(lambda: tabs.indexOf(tabs.files) == 1, timeout=10_000)
    assert tabs.tabBar().isVisible()
    tabs.setCurrentWidget(tabs.files)
    qtbot.waitUntil(lambda: "import_orders.py" in tabs.files.toPlainText(), timeout=10_000)
    assert "edited" in tabs.files.toPlainText() or "created" in tabs.files.toPlainText()
    from explorer.tree.model import Message, Part

    chat = window.store.create_conversation("a plain chat")
    window.store.append_turn(chat, [Message(None, None, "user", [Part("text", "hi")]),
                                    Message(None, None, "assistant", [Part("text", "hello")])])
    window.open_conversation(chat)
    qtbot.waitUntil(lambda: tabs.indexOf(tabs.files) < 0, timeout=10_000)
