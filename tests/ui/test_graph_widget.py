"""The tree graph on the demo: every node shown, clicks, keys, zoom, fit, stored layout, marks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers import chat_turn
from PySide6.QtCore import QPoint, QPointF, Qt, QThreadPool
from PySide6.QtGui import QContextMenuEvent, QWheelEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.store.layout_store import ERROR, TOOL_CALL
from explorer.ui.background.tasks import TaskRunner
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph.item import Lod
from explorer.ui.graph.model import F_ACTIVE, F_CHECKPOINT, F_ERROR, F_REWIND, F_TOOL_CALL


def _open(qtbot: QtBot, store: Store, cid: int) -> TreeGraphWidget:
    w = TreeGraphWidget(store, mode="messages")
    qtbot.addWidget(w)
    w.resize(1000, 800)
    w.show()
    with qtbot.waitSignal(w.loaded, timeout=20_000):
        w.load_conversation(cid)
    return w


@pytest.fixture
def graph(qtbot: QtBot, demo: tuple[Store, int]) -> Iterator[TreeGraphWidget]:
    w = _open(qtbot, *demo)
    yield w
    w.shutdown()
    assert not w.runner.active and w.runner.closed
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def _view_pos(w: TreeGraphWidget, mid: int) -> QPoint:
    pos = w.node_position(mid)
    assert pos is not None
    return w.view.mapFromScene(pos)


def _inside(w: TreeGraphWidget, mid: int) -> bool:
    return w.view.viewport().rect().contains(_view_pos(w, mid))


def test_the_widget_shows_every_node_of_the_conversation(
    graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    ids = [n.id for n in store.skeleton(cid)]
    assert graph.data is not None
    assert list(graph.data.model.ids) == ids
    graph.fit()
    graph.grab()
    assert graph.view.item is not None and graph.view.item.paint_count > 0
    assert all(_inside(graph, mid) for mid in ids)


def test_clicking_a_node_emits_its_id(
    qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    target = store.skeleton(cid)[5].id
    with qtbot.waitSignal(graph.nodeSelected, timeout=2000) as sig:
        qtbot.mouseClick(graph.view.viewport(), Qt.MouseButton.LeftButton,
                         pos=_view_pos(graph, target))
    assert sig.args == [target]
    assert graph.selected_node() == target


def test_clicking_empty_space_selects_nothing(qtbot: QtBot, graph: TreeGraphWidget) -> None:
    with qtbot.assertNotEmitted(graph.nodeSelected):
        qtbot.mouseClick(graph.view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(3, 3))
    assert graph.selected_node() is None


def test_dragging_pans_instead_of_selecting(qtbot: QtBot, graph: TreeGraphWidget) -> None:
    graph.view.set_scale(1.5)
    bar = graph.view.verticalScrollBar()
    before = bar.value()
    vp = graph.view.viewport()
    with qtbot.assertNotEmitted(graph.nodeSelected):
        qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=QPoint(500, 500))
        for y in range(490, 380, -10):
            qtbot.mouseMove(vp, QPoint(500, y))
        qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=QPoint(500, 390))
    assert bar.value() > before


def test_keys_walk_the_tree(qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]) -> None:
    store, cid = demo
    branch_point = next(n.id for n in store.skeleton(cid) if len(store.children(n.id)) > 1)
    first, second = store.children(branch_point)[:2]
    graph.select_node(first)
    graph.view.setFocus()
    with qtbot.waitSignal(graph.nodeSelected) as sig:
        qtbot.keyClick(graph.view, Qt.Key.Key_Right)
    assert sig.args == [second]
    with qtbot.waitSignal(graph.nodeSelected) as sig:
        qtbot.keyClick(graph.view, Qt.Key.Key_Left)
    assert sig.args == [first]
    with qtbot.waitSignal(graph.nodeSelected) as sig:
        qtbot.keyClick(graph.view, Qt.Key.Key_Up)
    assert sig.args == [branch_point]
    active = set(store.path_ids(store.conversation(cid).tip_id or 0))
    on_path = next(c for c in store.children(branch_point) if c in active)
    with qtbot.waitSignal(graph.nodeSelected) as sig:
        qtbot.keyClick(graph.view, Qt.Key.Key_Down)
    assert sig.args == [on_path]


def test_left_at_the_first_sibling_stays_put(qtbot: QtBot, graph: TreeGraphWidget,
                                             demo: tuple[Store, int]) -> None:
    store, cid = demo
    root = store.skeleton(cid)[0].id
    graph.select_node(root)
    with qtbot.assertNotEmitted(graph.nodeSelected):
        qtbot.keyClick(graph.view, Qt.Key.Key_Left)
        qtbot.keyClick(graph.view, Qt.Key.Key_Up)
    assert graph.selected_node() == root


def test_enter_and_double_click_activate_the_node(
    qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    target = store.skeleton(cid)[3].id
    graph.select_node(target)
    with qtbot.waitSignal(graph.nodeActivated) as sig:
        qtbot.keyClick(graph.view, Qt.Key.Key_Return)
    assert sig.args == [target]
    other = store.skeleton(cid)[8].id
    with qtbot.waitSignal(graph.nodeActivated) as sig:
        qtbot.mouseDClick(graph.view.viewport(), Qt.MouseButton.LeftButton,
                          pos=_view_pos(graph, other))
    assert sig.args == [other]


def test_right_click_on_a_node_requests_its_menu(
    qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    target = store.skeleton(cid)[2].id
    pos = _view_pos(graph, target)
    with qtbot.waitSignal(graph.contextMenuRequested) as sig:
        graph.view.contextMenuEvent(_context_event(pos, graph.view.viewport().mapToGlobal(pos)))
    assert sig.args[0] == target
    assert sig.args[1] == graph.view.viewport().mapToGlobal(pos)


def _context_event(pos: QPoint, global_pos: QPoint) -> QContextMenuEvent:
    return QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, global_pos)


def test_select_node_from_outside_is_not_echoed(
    qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    target = store.skeleton(cid)[4].id
    with qtbot.assertNotEmitted(graph.nodeSelected):
        assert graph.select_node(target)
    assert graph.selected_node() == target
    assert not graph.select_node(10**9)


def test_zoom_changes_the_level_of_detail(graph: TreeGraphWidget) -> None:
    item = graph.view.item
    assert item is not None
    graph.view.set_scale(1.0)
    graph.grab()
    assert item.last_lod == Lod.TEXT and item.last_drawn > 0
    graph.view.set_scale(0.3)
    graph.grab()
    assert item.last_lod == Lod.BOXES  # type: ignore[comparison-overlap]


def test_ctrl_wheel_zooms_around_the_cursor(graph: TreeGraphWidget) -> None:
    view = graph.view
    view.set_scale(2.0)  # larger than the viewport both ways, so nothing is centred
    cursor = QPoint(400, 300)
    before_scene = view.mapToScene(cursor)
    before = view.scale_factor()
    event = QWheelEvent(QPointF(cursor), QPointF(view.viewport().mapToGlobal(cursor)),
                        QPoint(0, 0), QPoint(0, 120), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.ControlModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), event)
    assert view.scale_factor() > before
    after_scene = view.mapToScene(cursor)
    assert abs(after_scene.x() - before_scene.x()) < 3 / view.scale_factor() + 1
    assert abs(after_scene.y() - before_scene.y()) < 3 / view.scale_factor() + 1


def test_f_fits_the_whole_tree(qtbot: QtBot, graph: TreeGraphWidget,
                               demo: tuple[Store, int]) -> None:
    store, cid = demo
    graph.view.set_scale(2.0)
    ids = [n.id for n in store.skeleton(cid)]
    assert not all(_inside(graph, mid) for mid in ids)
    graph.view.setFocus()
    qtbot.keyClick(graph.view, Qt.Key.Key_F)
    assert all(_inside(graph, mid) for mid in ids)


def test_center_on_brings_a_node_into_the_middle(graph: TreeGraphWidget,
                                                 demo: tuple[Store, int]) -> None:
    store, cid = demo
    graph.view.set_scale(2.0)
    target = store.skeleton(cid)[-1].id
    assert graph.center_on(target)
    middle = graph.view.viewport().rect().center()
    pos = _view_pos(graph, target)
    assert abs(pos.x() - middle.x()) <= 2 and abs(pos.y() - middle.y()) <= 2


def test_marks_come_from_the_store(graph: TreeGraphWidget, demo: tuple[Store, int]) -> None:
    store, cid = demo
    assert graph.data is not None
    m = graph.data.model
    tip = store.conversation(cid).tip_id
    assert tip is not None
    active = set(store.path_ids(tip))
    for i, mid in enumerate(m.ids):
        assert bool(m.flags[i] & F_ACTIVE) == (mid in active)
        parts = store.message(mid).parts
        assert bool(m.flags[i] & F_TOOL_CALL) == any(p.kind == "tool_use" for p in parts)
        assert bool(m.flags[i] & F_ERROR) == any(p.is_error for p in parts)
    checkpoints = store.checkpoints(cid)
    flagged = {int(m.ids[i]) for i in range(len(m)) if m.flags[i] & F_CHECKPOINT}
    assert flagged == set(checkpoints.values()) and flagged
    rewound = {r["from_tip_id"] for r in store.rewinds(cid)}
    assert {int(m.ids[i]) for i in range(len(m)) if m.flags[i] & F_REWIND} == rewound
    assert m.tip == m.index[tip]
    label, at = next(iter(checkpoints.items()))
    assert f"checkpoint: {label}" in m.tooltip(m.index[at])
    assert (TOOL_CALL, ERROR) == (F_TOOL_CALL, F_ERROR)


def test_second_load_reads_the_stored_layout(
    qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    assert graph.data is not None and graph.data.layout_computed
    stamp = store.reader.execute(
        "SELECT computed_at FROM layouts WHERE conversation_id = ?", (cid,)).fetchone()[0]
    again = _open(qtbot, store, cid)
    try:
        assert again.data is not None and not again.data.layout_computed
        assert again.data.layout_computed_at == stamp
        assert store.reader.execute(
            "SELECT computed_at FROM layouts WHERE conversation_id = ?", (cid,)
        ).fetchone()[0] == stamp
        assert again.data.model.xs == graph.data.model.xs
    finally:
        again.shutdown()


def test_a_grown_tree_is_laid_out_again_on_refresh(
    qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    new_ids = store.append_turn(cid, chat_turn(1))
    with qtbot.waitSignal(graph.loaded, timeout=20_000):
        graph.refresh()
    assert graph.data is not None and graph.data.layout_computed
    assert all(mid in graph.data.model.index for mid in new_ids)
    assert graph.data.model.tip == graph.data.model.index[new_ids[-1]]


def test_refresh_after_a_branch_moves_the_active_path_and_keeps_selection(
    qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    off_path = next(n.id for n in store.skeleton(cid)
                    if n.id not in set(store.path_ids(store.conversation(cid).tip_id or 0)))
    graph.select_node(off_path)
    store.branch(cid, off_path)
    with qtbot.waitSignal(graph.loaded, timeout=20_000):
        graph.refresh()
    # The spine follows the active path: the new path is laid out as the straight column.
    assert graph.data is not None and graph.data.layout_computed
    m = graph.data.model
    assert m.tip == m.index[off_path] and m.flags[m.index[off_path]] & F_ACTIVE
    path = [m.index[mid] for mid in store.path_ids(off_path)]
    assert {m.xs[i] for i in path} == {m.xs[m.roots[0]]} and m.xs[path[0]] == min(m.xs)
    assert graph.selected_node() == off_path
    with qtbot.waitSignal(graph.loaded, timeout=20_000):
        graph.refresh()
    assert not graph.data.layout_computed, "an unchanged tree and tip reads its stored layout"


def test_a_newer_load_wins_over_an_older_one(
    qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    other = next(c.id for c in store.conversations() if c.id != cid)
    with qtbot.waitSignal(graph.loaded, timeout=20_000) as sig:
        graph.load_conversation(cid)
        graph.load_conversation(other)
    assert sig.args == [other]
    assert graph.data is not None and graph.data.conversation_id == other
    assert graph.conversation_id == other


def test_the_layout_runs_on_the_given_task_runner_and_a_newer_load_cancels_the_older(
    qtbot: QtBot, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    runner = TaskRunner(None, 2, "window-runner")
    w = TreeGraphWidget(store, mode="messages", runner=runner)
    qtbot.addWidget(w)
    try:
        assert w.runner is runner
        w.load_conversation(cid)
        first = runner.active[0]
        with qtbot.waitSignal(w.loaded, timeout=20_000):
            w.load_conversation(cid)
        assert first.ticket.cancelled and not w.is_loading
        assert w.data is not None and w.data.conversation_id == cid
        w.shutdown()  # a shared runner belongs to its owner: still usable afterwards
        assert not runner.closed
    finally:
        runner.shutdown()
    assert not runner.active
    w.refresh()  # after its runner shut down (a theme change reaching a closed window)
    assert not w.is_loading


def test_a_failed_layout_is_reported_and_the_widget_stops_loading(
    qtbot: QtBot, graph: TreeGraphWidget
) -> None:
    with qtbot.waitSignal(graph.loadFailed, timeout=20_000) as sig:
        graph.load_conversation(999_999)
    assert sig.args[0] == 999_999 and "NotFound" in sig.args[1]
    assert not graph.is_loading


def test_selection_requested_while_loading_is_applied_after(
    qtbot: QtBot, graph: TreeGraphWidget, demo: tuple[Store, int]
) -> None:
    store, cid = demo
    target = store.skeleton(cid)[7].id
    with qtbot.waitSignal(graph.loaded, timeout=20_000):
        graph.load_conversation(cid)
        graph.select_node(target)
    assert graph.selected_node() == target


def test_minimap_click_moves_the_view(qtbot: QtBot, graph: TreeGraphWidget) -> None:
    graph.view.set_scale(2.0)
    graph.grab()
    mini = graph.minimap
    assert mini.isVisible()
    top = QPoint(mini.width() // 2, 6)
    bottom = QPoint(mini.width() // 2, mini.height() - 6)
    qtbot.mouseClick(mini, Qt.MouseButton.LeftButton, pos=top)
    high = graph.view.mapToScene(graph.view.viewport().rect().center()).y()
    qtbot.mouseClick(mini, Qt.MouseButton.LeftButton, pos=bottom)
    low = graph.view.mapToScene(graph.view.viewport().rect().center()).y()
    assert low > high
    expected = mini.scene_point(QPointF(bottom))
    assert expected is not None


def test_an_empty_conversation_loads_and_paints(qtbot: QtBot, demo: tuple[Store, int]) -> None:
    store, _ = demo
    empty = store.create_conversation("nothing yet")
    w = _open(qtbot, store, empty)
    try:
        assert w.data is not None and len(w.data.model) == 0
        w.grab()
        assert w.selected_node() is None
        with qtbot.assertNotEmitted(w.nodeSelected):
            qtbot.keyClick(w.view, Qt.Key.Key_Down)
    finally:
        w.shutdown()
