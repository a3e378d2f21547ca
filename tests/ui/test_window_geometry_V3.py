"""V3: nothing overlaps or is cut, and no strip pushes a pane away, from 1024×700 up.

The window is built offscreen at the sizes a person uses; the checks read widget geometry:
pane widths, whether a label shows its whole text, whether two widgets overlap."""

from __future__ import annotations

from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from explorer.ui.window.main_window import MainWindow


def settled(qtbot: QtBot, w: MainWindow) -> None:
    w.ops.settle()
    qtbot.waitUntil(lambda: not w.graph.is_loading and not w.transcript.is_loading,
                    timeout=10_000)
    qtbot.wait(50)


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800), (2560, 1440)])
def test_V3_the_preview_strip_never_pushes_the_graph_pane_away(
        qtbot: QtBot, window: Any, size: tuple[int, int]) -> None:
    w: MainWindow = window
    w.resize(*size)
    settled(qtbot, w)
    assert (w.width(), w.height()) == size
    graph_before, window_before = w.graph.width(), w.width()
    store = w.store
    active = set(store.path_ids(store.conversation(1).tip_id or 0))
    off = next(n.id for n in store.skeleton(1) if n.id not in active)
    w.reveal(off)  # a branch preview: the strip over the transcript shows
    settled(qtbot, w)
    banner = w.branch_state.banner
    assert banner.isVisible()
    assert w.width() == window_before, "the strip widened the window"
    assert w.graph.width() >= graph_before - 2, (graph_before, w.graph.width())
    assert banner.width() <= w.transcript.width() + 40
    assert banner.detail.full and banner.detail.toolTip() == banner.detail.full


def test_V1_archive_and_delete_on_a_turn_node_take_the_whole_turn(
        qtbot: QtBot, window: Any) -> None:
    """A turn node is named by its last message; archiving it from the graph folds the turn
    from its prompt, leaving no half-turn (prompt and tool calls) behind."""
    from PySide6.QtCore import QPoint

    w: MainWindow = window
    assert w.graph.mode == "turns"
    store = w.store
    active = set(store.path_ids(store.conversation(1).tip_id or 0))
    model = w.graph.view.model
    assert model is not None
    nodes = {}
    for m in store.skeleton(1):
        nodes.setdefault(model.index.get(m.id, -1), []).append(m.id)
    turn = next(ids for ids in nodes.values() if len(ids) > 2 and ids[0] not in active)
    last, first = max(turn), min(turn)
    assert w.graph.node_root(last) == first
    w.graph.contextMenuRequested.emit(last, QPoint(10, 10))
    menu = w.last_menu
    assert menu is not None
    menu.action("archive").trigger()
    menu.close()
    w.ops.settle()
    qtbot.waitUntil(lambda: first in store.marks(1).archived, timeout=5000)
    assert last not in store.marks(1).archived  # the branch is marked at its root


def test_V3_at_1024x700_the_context_title_is_whole_and_no_card_header_overlaps(
        qtbot: QtBot, window: Any) -> None:
    from explorer.ui.transcript.header_card import HeaderCard

    w: MainWindow = window
    w.resize(1024, 700)
    settled(qtbot, w)
    title = w.context_panel.title
    qtbot.waitUntil(lambda: title.full != "Context", timeout=10_000)  # the figure is in
    qtbot.wait(20)
    assert title.full.startswith("Context · ") and title.text() == title.full
    headers = 0
    for mid in w.transcript.message_ids():
        card = w.transcript.card_for(mid)
        if not isinstance(card, HeaderCard) or not card.isVisible():
            continue
        card.header.layout(card.header._laid_out)  # as last painted
        drawn = [i for i in card.header.items if i.rect.width() > 0 and i.shown]
        role = card.header.find("role")
        assert role is not None and role.shown == role.text
        for item in drawn:
            if item is not role:
                assert not item.rect.intersects(role.rect), (mid, item.name, item.text)
        headers += 1
    assert headers >= 3


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800), (2560, 1440)])
@pytest.mark.parametrize("mode", ["turns", "messages"])
def test_V3_fit_leaves_every_node_clear_of_the_legend_minimap_and_view_switch(
        qtbot: QtBot, window: Any, size: tuple[int, int], mode: str) -> None:
    from PySide6.QtCore import QRectF

    from explorer.ui.graph.model import BOX_H, BOX_W

    w: MainWindow = window
    w.resize(*size)
    if w.graph.mode != mode:
        with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
            w.graph.set_mode(mode)  # type: ignore[arg-type]
    settled(qtbot, w)
    graph = w.graph
    graph.fit()
    model, view = graph.view.model, graph.view
    assert model is not None
    overlays = [o.geometry() for o in (graph.legend, graph.minimap) if o.isVisible()]
    assert not graph.switch.geometry().intersects(view.geometry())
    vp = view.viewport().geometry()
    for i in range(len(model)):
        box = QRectF(model.xs[i] - BOX_W / 2, model.ys[i] - BOX_H / 2, BOX_W, BOX_H)
        shown = view.mapFromScene(box).boundingRect().translated(view.viewport().pos())
        assert vp.contains(shown), (i, shown, vp)
        assert not any(o.intersects(shown) for o in overlays), (i, shown, overlays)


def test_V3_the_chosen_view_reads_as_chosen_in_the_dark_scheme(qtbot: QtBot, window: Any) -> None:
    """The checked button of Turns | Messages is drawn in the highlight colour, so it stands
    out in a dark scheme as in a light one."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.theme import apply_theme

    w: MainWindow = window
    apply_theme("dark")
    try:
        qtbot.wait(50)
        switch = w.graph.switch
        highlight = QApplication.palette().highlight().color()
        chosen = switch.buttons[w.graph.mode].grab().toImage()
        other = switch.buttons["messages" if w.graph.mode == "turns" else "turns"].grab(
        ).toImage()
        centre = chosen.pixelColor(4, chosen.height() // 2)
        assert abs(centre.lightness() - highlight.lightness()) < 25, centre.name()
        assert abs(other.pixelColor(4, other.height() // 2).lightness()
                   - centre.lightness()) > 40
    finally:
        apply_theme("system")


def test_V3_the_fork_title_question_shows_its_default_title_whole(
        qtbot: QtBot, window: Any) -> None:
    from PySide6.QtWidgets import QLineEdit

    from explorer.ui.questions import text_dialog

    title = "Nightly orders import crashes on some CSV files (fork at message 17)"
    dialog = text_dialog(window, "Fork", "Title of the new conversation:", title)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    line = dialog.findChild(QLineEdit)
    assert line is not None and line.text() == title
    assert line.width() >= line.fontMetrics().horizontalAdvance(title) + 8
    dialog.reject()


def test_V3_a_checkpoint_name_in_a_card_header_is_never_cut_to_its_flag(
        qtbot: QtBot, window: Any) -> None:
    """Tokens and time give way first: the header keeps "⚑ fixed" whole."""
    from explorer.ui.transcript.header_card import HeaderCard

    w: MainWindow = window
    w.resize(1280, 800)
    settled(qtbot, w)
    checked = 0
    for mid in w.transcript.message_ids():
        card = w.transcript.card_for(mid)
        if not isinstance(card, HeaderCard) or not card.isVisible():
            continue
        for item in card.header.items:
            if item.name == "checkpoint":
                assert item.shown == item.text, (mid, item.shown)
                checked += 1
    assert checked >= 1
