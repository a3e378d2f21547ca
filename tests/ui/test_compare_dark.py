"""The compare view's word and line marks stay readable in dark mode, and follow a theme switch."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from ui_compare import marked_runs

from explorer.store import Store
from explorer.ui.compare.cells import DiffColors, contrast
from explorer.ui.compare.window import CompareWindow
from explorer.ui.settings_dialog import apply_theme


@pytest.fixture
def restore_theme() -> Iterator[None]:
    yield
    apply_theme("light")
    apply_theme("system")


def _answers(store: Store, conv: int) -> list[int]:
    [prompt] = [n.id for n in store.skeleton(conv) if n.role == "user"
                and len(store.children(n.id)) == 2
                and all(store.message(k).role == "assistant" for k in store.children(n.id))]
    return store.children(prompt)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_diff_marks_have_readable_contrast_in_both_themes(
    qapp: QApplication, theme: str, restore_theme: None
) -> None:
    assert apply_theme(theme)
    pal = qapp.palette()
    base, text = pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Text)
    assert (base.lightness() < 128) == (theme == "dark")
    colors = DiffColors.from_palette(pal)
    assert contrast(text, QColor(colors.changed)) >= 4.5, "words on the highlight"
    assert contrast(QColor(colors.deleted), base) >= 4.5, "struck words"
    assert contrast(QColor(colors.changed), base) >= 1.3, "the highlight shows at all"
    assert contrast(QColor(colors.muted), base) >= 3.0


def test_a_theme_switch_recolours_an_open_compare_window(
    qtbot: QtBot, demo: tuple[Store, int], restore_theme: None
) -> None:
    store, conv = demo
    apply_theme("light")
    w = CompareWindow(store, conv, _answers(store, conv))
    qtbot.addWidget(w)
    w.show()
    light = w.colors
    words = marked_runs(w.cell(0, 0), "changed")
    gone = marked_runs(w.cell(0, 0), "struck")
    assert words and gone
    apply_theme("dark")
    qtbot.waitUntil(lambda: w.colors != light, timeout=5000)
    dark = QColor(w.colors.changed)
    assert dark.lightness() < QColor(light.changed).lightness()
    assert w.cell(0, 0).colors == w.colors, "the cells were rebuilt with the new colours"
    assert marked_runs(w.cell(0, 0), "changed") == words
    assert marked_runs(w.cell(0, 0), "struck") == gone
    with qtbot.waitSignal(w.destroyed):  # before its store closes: a closed store lends
        w.deleteLater()                  # no connection (W1)
