"""Where the graph opens on a tree too wide to read whole: on the tip, slid toward the tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from graph_trees import generated_conversation, loaded_graph
from PySide6.QtCore import QRectF
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.ui.graph.model import BOX_H, BOX_W
from explorer.ui.graph.view import OPEN_MARGIN, slide


def test_a_node_at_the_trees_edge_puts_the_view_against_that_edge() -> None:
    # a tree from 0 to 1000 seen 400 wide: a node at x=50 gives a view from 0 to 400
    assert slide(100, 0, 1000, 200, 60) == 200
    assert slide(900, 0, 1000, 200, 60) == 800


def test_a_tree_narrower_than_the_view_is_centred() -> None:
    assert slide(100, 0, 300, 200, 60) == 150


def test_the_node_stays_inside_the_view_with_a_margin() -> None:
    # the tree's middle would leave the node out: the view moves just enough to hold it
    centre = slide(0, -1000, 1000, 200, 60)
    assert centre - 200 <= 0 - 60 - OPEN_MARGIN + 1e-9


@pytest.fixture(scope="module")
def bushy_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("open") / "bushy.db"
    with Store(path) as store:
        cid = generated_conversation(store, 400, seed=3, branch=0.04)
    return path, cid


def test_the_graph_opens_on_the_tip_without_empty_scene_beside_the_tree(
        qtbot: QtBot, bushy_db: tuple[Path, int]) -> None:
    with loaded_graph(qtbot, *bushy_db, (520, 560)) as w:
        view, model = w.view, w.view.model
        assert model is not None and view.item is not None
        visible = view.mapToScene(view.viewport().rect()).boundingRect()
        bounds = view.item.boundingRect()
        assert bounds.width() > visible.width() and bounds.height() > visible.height()
        tip = QRectF(model.xs[model.tip] - BOX_W / 2, model.ys[model.tip] - BOX_H / 2,
                     BOX_W, BOX_H)
        assert visible.contains(tip)
        assert visible.left() >= bounds.left() - 1 and visible.right() <= bounds.right() + 1
        assert visible.top() >= bounds.top() - 1 and visible.bottom() <= bounds.bottom() + 1


def test_a_tip_at_the_bottom_of_a_long_run_opens_clear_of_the_legend_and_minimap(
        qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "line.db"
    with Store(path) as store:
        cid = generated_conversation(store, 200, seed=1, branch=0.0)
    with loaded_graph(qtbot, path, cid, (520, 560)) as w:
        view, model = w.view, w.view.model
        assert model is not None and view.item is not None
        assert model.ys[model.tip] == max(model.ys)  # the run's last message is the lowest box
        tip = QRectF(model.xs[model.tip] - BOX_W / 2, model.ys[model.tip] - BOX_H / 2,
                     BOX_W, BOX_H)
        on_screen = view.mapFromScene(tip).boundingRect().translated(view.viewport().pos())
        assert view.viewport().geometry().contains(on_screen)
        overlays = [o for o in (w.legend, w.minimap, w.switch) if o.isVisible()]
        assert len(overlays) == 3
        assert not any(o.geometry().intersects(on_screen) for o in overlays)
        above = view.mapToScene(view.viewport().rect()).boundingRect()
        assert above.top() < tip.top() - 3 * BOX_H  # the turns before the tip show above it


def test_a_tree_that_fits_beside_the_overlays_is_shown_whole_clear_of_them(
        qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "small.db"
    with Store(path) as store:
        cid = generated_conversation(store, 7, seed=1, branch=0.0)
    with loaded_graph(qtbot, path, cid, (520, 760)) as w:
        view, model = w.view, w.view.model
        assert model is not None
        overlays = [o.geometry() for o in (w.legend, w.minimap, w.switch) if o.isVisible()]
        assert len(overlays) == 3
        for i in range(len(model)):
            box = QRectF(model.xs[i] - BOX_W / 2, model.ys[i] - BOX_H / 2, BOX_W, BOX_H)
            shown = view.mapFromScene(box).boundingRect().translated(view.viewport().pos())
            assert view.viewport().geometry().contains(shown)
            assert not any(o.intersects(shown) for o in overlays), i
