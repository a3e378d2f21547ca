"""Where the graph opens on a tree too wide to read whole: on the tip, slid toward the tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from graph_trees import generated_conversation, loaded_graph
from PySide6.QtCore import QRectF
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph.model import BOX_H, BOX_W, GraphModel
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


def _line(tmp_path: Path, n: int) -> tuple[Path, int]:
    """A straight run of ``n`` messages: its tip is the lowest box."""
    path = tmp_path / f"line{n}.db"
    with Store(path) as store:
        return path, generated_conversation(store, n, seed=1, branch=0.0)


def _box(model: GraphModel, i: int) -> QRectF:
    return QRectF(model.xs[i] - BOX_W / 2, model.ys[i] - BOX_H / 2, BOX_W, BOX_H)


def _shown_clear(w: TreeGraphWidget, box: QRectF) -> bool:
    """Whether a scene box is inside the viewport and under neither overlay (the view switch
    sits above the view, over no node)."""
    view = w.view
    shown = view.mapFromScene(box).boundingRect().translated(view.viewport().pos())
    overlays = [o.geometry() for o in (w.legend, w.minimap) if o.isVisible()]
    assert len(overlays) == 2
    assert w.switch.isVisible() and not w.switch.geometry().intersects(view.geometry())
    return view.viewport().geometry().contains(shown) and not any(
        o.intersects(shown) for o in overlays)


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
        assert visible.contains(_box(model, model.tip))
        assert visible.left() >= bounds.left() - 1 and visible.right() <= bounds.right() + 1
        assert visible.top() >= bounds.top() - 1 and visible.bottom() <= bounds.bottom() + 1


def test_a_tip_at_the_bottom_of_a_long_run_opens_clear_of_the_legend_and_minimap(
        qtbot: QtBot, tmp_path: Path) -> None:
    with loaded_graph(qtbot, *_line(tmp_path, 200), (520, 560)) as w:
        model = w.view.model
        assert model is not None
        assert model.ys[model.tip] == max(model.ys)
        tip = _box(model, model.tip)
        assert _shown_clear(w, tip)
        above = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
        assert above.top() < tip.top() - 3 * BOX_H  # the turns before the tip show above it


def test_a_tree_that_fits_beside_the_overlays_is_shown_whole_clear_of_them(
        qtbot: QtBot, tmp_path: Path) -> None:
    with loaded_graph(qtbot, *_line(tmp_path, 7), (520, 760)) as w:
        model = w.view.model
        assert model is not None
        assert all(_shown_clear(w, _box(model, i)) for i in range(len(model)))
