"""V3: at fit-all a big tree's structure still reads — branch points, the active path,
checkpoints and rewinds at a fixed on-screen size, in the graph and in the minimap."""

from __future__ import annotations

from pathlib import Path

from graph_trees import generated_conversation, loaded_graph
from pytestqt.qtbot import QtBot

from explorer.app.graph.far_marks import SPOT_FLAGS, far_marks, subtree_sizes
from explorer.app.graph.model import F_ACTIVE
from explorer.app.importing.demo import load_demo
from explorer.store import Store
from explorer.ui.graph.far_view import tick_length
from explorer.ui.graph.palette import light_palette
from explorer.ui.graph.worker import build_graph


def test_V3_far_marks_name_every_branch_point_with_the_weight_that_leaves_it(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "d.db")
    load_demo(store)
    model = build_graph(store, 1, light_palette()).model
    marks = far_marks(model)
    points = [p for p in range(len(model)) if len(model.children(p)) >= 2]
    assert marks.branch_points == len(points) >= 3
    sizes = subtree_sizes(model)
    assert sizes[model.roots[0]] == len(model)
    total_off_path = sum(marks.branch_weight)
    active = sum(1 for i in range(len(model)) if model.flags[i] & F_ACTIVE)
    assert total_off_path == len(model) - active  # every message off the active path, once
    kinds = {SPOT_FLAGS[k][1] for k in marks.spot_kind}
    assert {"checkpoint", "rewind"} <= kinds
    assert list(marks.active_y) == sorted(marks.active_y) and len(marks.active_y) == active
    store.close()


def test_V3_a_tick_grows_with_the_branch_but_stays_a_fixed_size_on_screen() -> None:
    assert tick_length(1) < tick_length(4) < tick_length(64) < tick_length(1000) <= 60
    assert tick_length(10**9) == 60


def test_V3_a_tall_tree_at_fit_shows_its_branch_points_in_the_graph_and_the_minimap(
        qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "tall.db"
    with Store(path) as store:
        cid = generated_conversation(store, 6000, seed=4, branch=0.02)
    with loaded_graph(qtbot, path, cid, (500, 600)) as w:
        w.fit()
        w.view.viewport().repaint()
        assert w.view.far.marks is not None and w.view.far.marks.branch_points > 20
        assert w.view.far.drawn > 20  # ticks, the active path and the density strip
        w.minimap.repaint()
        assert w.minimap.far_drawn > 20


def test_V3_a_tree_that_reads_at_fit_gets_no_far_marks(qtbot: QtBot, window: object) -> None:
    w = window.graph  # type: ignore[attr-defined]
    w.fit()
    w.view.viewport().repaint()
    assert w.view.far.drawn == 0 and w.minimap.far_drawn == 0


def test_V3_the_minimap_marks_the_part_on_screen_even_on_a_tall_tree(
        qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "tall.db"
    with Store(path) as store:
        cid = generated_conversation(store, 6000, seed=4, branch=0.02)
    with loaded_graph(qtbot, path, cid, (500, 600)) as w:
        w.view.set_scale(1.0)  # 100 %: a few rows of thousands on screen
        w.minimap.repaint()
        box = w.minimap.last_box
        assert box.width() >= 8 - 1e-6 and box.height() >= 8 - 1e-6
