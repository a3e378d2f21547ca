"""Keyboard and chrome: focus, F, Ctrl+, the overlaid command bar, dark colours, the list."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QColor, QKeySequence, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QScrollBar, QWidget
from pytestqt.qtbot import QtBot

from explorer.app.tending.message_actions import actions_for
from explorer.store import Store
from explorer.ui.app import open_store
from explorer.ui.preview.context_bar import COLOURS, DARK_FREE, free_colour
from explorer.ui.window.main_window import MainWindow


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    store = open_store(tmp_path / "ui.db")
    settings = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.resize(1300, 800)
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        w.show()
        w.open_conversation(1)
    qtbot.waitExposed(w)
    yield w
    w.close()
    store.close()


def test_focus_starts_on_the_tree_and_f_fits_unless_typing(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.graph.view, timeout=5000)
    window.graph.view.set_scale(2.0)
    fit = window.menu_action("fit_tree")
    assert fit.shortcut() == QKeySequence("F")
    fit.trigger()
    assert window.graph.view.scale_factor() < 2.0
    search = window.conversations.search
    search.setFocus()
    qtbot.keyClicks(search, "f")
    assert search.text() == "f"  # a text field keeps its letters


def test_settings_open_with_ctrl_comma_on_every_platform(window: MainWindow) -> None:
    assert window.menu_action("settings").shortcut() == QKeySequence("Ctrl+,")


def test_the_command_bar_overlays_the_window_and_opens_empty(
    qtbot: QtBot, window: MainWindow
) -> None:
    splitter_top = window.splitter.mapTo(window, window.splitter.rect().topLeft()).y()
    window.open_command_bar()
    bar = window.command_bar
    assert bar.isVisible() and bar.edit.text() == ""
    assert "/" in bar.edit.placeholderText()
    assert window.splitter.mapTo(window, window.splitter.rect().topLeft()).y() == splitter_top
    assert bar.geometry().intersects(window.splitter.geometry())  # floats over, not above
    qtbot.keyClicks(bar.edit, "/co")
    assert bar.edit.text() == "/co"  # not "//co"


def _needed(part: QWidget) -> int:
    """The height a part needs at its width (a wrapped label's lines)."""
    height = part.heightForWidth(part.width())
    return height if height > 0 else part.sizeHint().height()


def test_the_floating_command_bar_grows_with_its_hint_and_error_on_a_background_of_its_own(
    qtbot: QtBot, window: MainWindow
) -> None:
    """The hint, the error and the line are never squeezed into the bar's first height, and
    what lies under the bar does not show through it (a style sheet's polish drops a palette
    fill, so the bar paints a style sheet background)."""
    window.open_command_bar()
    bar = window.command_bar
    empty = bar.height()
    qtbot.keyClicks(bar.edit, "/delete ")
    hint = bar.hint_label
    assert hint.isVisible() and "with-checkpoints" in hint.text()
    assert bar.height() > empty
    for part in (bar.edit, hint):
        assert bar.rect().contains(part.geometry()), part.objectName()
        assert part.height() >= _needed(part), part.objectName()
    qtbot.keyClick(bar.edit, Qt.Key.Key_Backspace)
    qtbot.keyClicks(bar.edit, " everything")
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    error = bar.findChild(QLabel, "commandError")
    assert error is not None and error.isVisible() and "unknown option" in error.text()
    assert bar.rect().contains(error.geometry()) and error.height() >= _needed(error)
    image = window.grab().toImage()
    inside = bar.mapTo(window, bar.rect().bottomRight()) - QPoint(6, 3)
    assert image.pixelColor(inside) == bar.palette().color(QPalette.ColorRole.Window)


def test_context_bar_free_part_follows_a_dark_palette(qtbot: QtBot, window: MainWindow) -> None:
    bar = window.context_panel
    light = free_colour(bar)
    assert light == QColor(COLOURS["free"])
    dark = QPalette()
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e8eaed"))
    bar.setPalette(dark)
    assert free_colour(bar) == QColor(DARK_FREE)


def test_conversation_list_elides_and_says_no_matches(qtbot: QtBot, window: MainWindow) -> None:
    conv = window.conversations
    conv.resize(160, 400)
    qtbot.wait(50)
    bar = conv.view.horizontalScrollBar()
    assert isinstance(bar, QScrollBar) and not bar.isVisible()
    assert conv.view.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    conv.search.setText("zzz-nothing-like-this")
    assert conv.empty_label.isVisible() and "No matches" in conv.empty_label.text()
    conv.search.clear()
    assert not conv.empty_label.isVisible()


def test_menus_use_the_right_article(window: MainWindow) -> None:
    store: Store = window.store
    answer = next(m for m in store.path(1) if m.role == "assistant" and not m.tool_uses())
    acts = actions_for(store, 1, int(str(answer.id)))
    assert acts.edit.reason.startswith("an assistant message")
