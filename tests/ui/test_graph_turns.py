"""V1 in the window: the graph draws turns by default, folds runs, hangs subagents off calls."""

from __future__ import annotations

from pathlib import Path

from graph_trees import generated_conversation
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.store import Store
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph.model import BOX_H, BOX_W, COL_W, F_RUN, F_SIDE
from explorer.ui.graph.view import down, left, right


def _open(qtbot: QtBot, store: Store, cid: int, mode: str = "turns") -> TreeGraphWidget:
    w = TreeGraphWidget(store, mode="turns" if mode == "turns" else "messages")
    qtbot.addWidget(w)
    w.resize(1000, 800)
    w.show()
    with qtbot.waitSignal(w.loaded, timeout=30_000):
        w.load_conversation(cid)
    return w


def test_V1_turns_are_the_default_and_every_message_maps_to_one_node(
    qtbot: QtBot, worktrees_session: tuple[Store, int]
) -> None:
    store, cid = worktrees_session
    w = _open(qtbot, store, cid)
    try:
        m = w.view.model
        assert m is not None and m.turns is not None
        ids = [n.id for n in store.skeleton(cid)]
        assert len(m) < len(ids) / 5  # 212 messages, a handful of turns
        assert sorted(m.index) == sorted(ids)  # each message selects exactly one node
    finally:
        w.shutdown()


def test_V1_subagents_hang_off_their_call_and_are_never_root_siblings(
    qtbot: QtBot, worktrees_session: tuple[Store, int]
) -> None:
    store, cid = worktrees_session
    for mode in ("turns", "messages"):
        w = _open(qtbot, store, cid, mode)
        try:
            m = w.view.model
            assert m is not None
            sides = [i for i in range(len(m)) if m.flags[i] & F_SIDE]
            assert len(sides) == 2  # the recording's two subagents, started together
            own_roots = [r for r in m.roots if not m.flags[r] & F_SIDE]
            assert len(own_roots) == 1 and m.siblings(own_roots[0]) == [own_roots[0]]
            for i in sides:
                assert m.parents[i] >= 0  # hung off the node holding the Agent call
                assert m.siblings(i) == [i]
                assert i not in m.own_children(m.parents[i])
                assert left(m, i) == -1 and right(m, i) == -1  # ◀ ▶ never reach them
                assert down(m, m.parents[i]) != i
            if m.turns is not None:
                names = set(m.turns.agents.values())
                assert {"Count the notes", "Read the todo list"} <= names
        finally:
            w.shutdown()


def test_V1_a_folded_run_expands_on_click_and_keeps_the_tip(
    qtbot: QtBot, tmp_path: Path
) -> None:
    store = Store(tmp_path / "line.db")
    cid = generated_conversation(store, 60, seed=2, branch=0.0)  # 30 straight turns
    w = _open(qtbot, store, cid)
    try:
        m = w.view.model
        assert m is not None
        tip_before = int(m.ids[m.tip])
        runs = [i for i in range(len(m)) if m.flags[i] & F_RUN]
        assert len(runs) == 1 and len(m) == 3  # first turn, ⋯ 28 turns, the tip's turn
        i = runs[0]
        held = [mid for mid, node in m.index.items() if node == i]
        w.view.set_scale(1.0)
        w.view.center_on_node(i)
        pos = w.view.mapFromScene(m.xs[i], m.ys[i])
        with qtbot.waitSignal(w.loaded, timeout=30_000):
            qtbot.mouseClick(w.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
        m2 = w.view.model
        assert m2 is not None
        assert len({m2.index[mid] for mid in held}) > 1  # its turns are nodes again
        assert int(m2.ids[m2.tip]) == tip_before
    finally:
        w.shutdown()
        store.close()


def test_V1_switching_views_keeps_selection_and_tip(
    qtbot: QtBot, worktrees_session: tuple[Store, int]
) -> None:
    store, cid = worktrees_session
    w = _open(qtbot, store, cid)
    try:
        tip = store.conversation(cid).tip_id
        assert tip is not None
        inner = next(n.id for n in store.skeleton(cid) if n.id == 20)
        w.select_node(inner)
        assert w.selected_node() == inner
        with qtbot.waitSignal(w.loaded, timeout=30_000):
            w.mode_action.trigger()  # Ctrl+M
        assert w.mode == "messages"
        m = w.view.model
        assert m is not None and m.turns is None
        assert w.selected_node() == inner
        assert int(m.ids[m.tip]) == tip
        with qtbot.waitSignal(w.loaded, timeout=30_000):
            w.switch.buttons["turns"].click()
        assert w.mode == "turns" and w.selected_node() == inner
        m = w.view.model
        assert m is not None and m.tip == m.index[tip]
    finally:
        w.shutdown()


def test_V1_turn_boxes_and_labels_paint_at_every_zoom(
    qtbot: QtBot, worktrees_session: tuple[Store, int]
) -> None:
    store, cid = worktrees_session
    w = _open(qtbot, store, cid)
    try:
        item = w.view.item
        assert item is not None
        for scale in (0.05, 0.3, 1.0, 4.0):
            w.view.set_scale(scale)
            w.view.center_on_node(item.model.tip)
            image = QImage(w.view.viewport().size(), QImage.Format.Format_ARGB32)
            w.view.viewport().render(image, QPoint(0, 0))
            assert item.labels.drawn >= 1  # at least the TIP badge, whatever the zoom
    finally:
        w.shutdown()


def test_V1_a_model_change_is_labelled_where_it_happens(qtbot: QtBot, tmp_path: Path) -> None:
    store = Store(tmp_path / "demo.db")
    cid = load_demo(store)
    w = _open(qtbot, store, cid)
    try:
        m = w.view.model
        assert m is not None and m.turns is not None
        changes = m.turns.model_changes
        assert list(changes.values()) == ["claude-opus-4-1"]  # the regenerated answer
        (i,) = changes
        assert store.message(int(m.ids[i])).model == "claude-opus-4-1"
        w.view.set_scale(1.0)
        w.view.center_on_node(i)
        image = QImage(w.view.viewport().size(), QImage.Format.Format_ARGB32)
        w.view.viewport().render(image, QPoint(0, 0))
        assert w.view.item is not None and w.view.item.labels.drawn >= 2
    finally:
        w.shutdown()
        store.close()


def test_V1_the_turn_view_keeps_no_per_message_records_and_still_refolds(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """Once grouped, the per-message inputs are let go (memory follows the turns, not the
    messages); expanding a run reuses the grouping, so it needs none of them."""
    store = Store(tmp_path / "line.db")
    cid = generated_conversation(store, 60, seed=2, branch=0.0)
    w = _open(qtbot, store, cid)
    try:
        data = w.data
        assert data is not None and data.turn_view is not None
        assert data.turn_view.source.columns is None
        m = w.view.model
        assert m is not None
        run = next(i for i in range(len(m)) if m.flags[i] & F_RUN)
        with qtbot.waitSignal(w.loaded, timeout=30_000):
            w.expand_run(run)
        m2 = w.view.model
        assert m2 is not None and len(m2) > len(m)
        again = w.data
        assert again is not None and again.turn_view is not None
        assert again.turn_view.source.columns is None
    finally:
        w.shutdown()
        store.close()


def test_V1_a_model_change_tag_never_hides_a_neighbouring_box(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """The demo's regenerated answer (another model) is the tip, with its sibling right of it:
    the ``⇄ model`` tag goes over the tip's corner instead of over the sibling's text."""
    store = Store(tmp_path / "demo.db")
    cid = load_demo(store)
    w = _open(qtbot, store, cid)
    try:
        m = w.view.model
        assert m is not None and m.turns is not None
        (i,) = m.turns.model_changes
        assert m.node_at(m.xs[i] + COL_W, m.ys[i]) >= 0, "a box stands right of it"
        w.view.set_scale(1.0)
        w.view.center_on_node(i)
        image = QImage(w.view.viewport().size(), QImage.Format.Format_ARGB32)
        w.view.viewport().render(image, QPoint(0, 0))
        assert w.view.item is not None
        tags = w.view.item.labels.models
        assert [text for _, text in tags] == ["⇄ claude-opus-4-1"]
        for k in range(len(m)):
            corner = w.view.mapFromScene(m.xs[k] - BOX_W / 2, m.ys[k] - BOX_H / 2)
            box = QRectF(corner.x(), corner.y(), BOX_W, BOX_H)  # at 100 %
            assert not tags[0][0].intersects(box), f"the tag covers box {k}"
    finally:
        w.shutdown()
        store.close()


def test_V1_subagent_links_run_between_boxes_never_through_one(
    worktrees_session: tuple[Store, int]
) -> None:
    """Subagent links run in the gaps between rows, never through a box (the recorded
    Claude Code session, whose one call starts two subagents side by side)."""
    from explorer.app.graph.cells import _collect_edges, _Collector
    from explorer.app.graph.model import BOX_H, BOX_W
    from explorer.ui.graph.palette import light_palette
    from explorer.ui.graph.worker import build_turn_graph

    store, cid = worktrees_session
    model = build_turn_graph(store, cid, light_palette()).model
    col = _Collector()
    _collect_edges(model, col)
    segments = [tuple(coords[k:k + 4]) for kinds in col.cells.values()
                for kind, coords in kinds.items() if kind == "side_edges"
                for k in range(0, len(coords), 4)]
    assert len(segments) >= 2 * 2
    boxes = [(model.xs[i] - BOX_W / 2 + 1, model.ys[i] - BOX_H / 2 + 1,
              model.xs[i] + BOX_W / 2 - 1, model.ys[i] + BOX_H / 2 - 1) for i in range(len(model))]
    for x1, y1, x2, y2 in segments:
        lo_x, hi_x, lo_y, hi_y = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
        crossed = [b for b in boxes
                   if lo_x < b[2] and hi_x > b[0] and lo_y < b[3] and hi_y > b[1]]
        assert crossed == [], ((x1, y1, x2, y2), crossed)
