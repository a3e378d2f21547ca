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


@pytest.mark.parametrize("size", [(1024, 700), (1280, 800)])
def test_V3_the_preview_strip_never_pushes_the_graph_pane_away(
        qtbot: QtBot, window: Any, size: tuple[int, int]) -> None:
    w: MainWindow = window
    w.resize(*size)
    settled(qtbot, w)
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
