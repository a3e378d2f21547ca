"""What a frame of the graph costs, counted (not timed): label lookups, image scaling."""

from __future__ import annotations

import random
from array import array
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest
from graph_trees import generated_conversation, loaded_graph, paint_frame
from pytestqt.qtbot import QtBot

from explorer.app.graph.spots import build_spots
from explorer.store import Store
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph.item import Lod
from explorer.ui.graph.labels import MAX_BRANCH_LABELS
from explorer.ui.graph.model import BOX_H, BOX_W
from explorer.ui.graph.palette import palette_for_application

N = 8_000


def _inside(view: tuple[float, float, float, float], x: float, y: float) -> bool:
    left, top, right, bottom = view
    return left - BOX_W <= x <= right + BOX_W and top - BOX_H <= y <= bottom + BOX_H


def test_spots_find_exactly_the_nodes_in_view_and_stop_at_the_limit() -> None:
    rnd = random.Random(3)
    xs = array("d", (rnd.uniform(0, 50_000) for _ in range(5000)))
    ys = array("d", (rnd.uniform(0, 80_000) for _ in range(5000)))
    chosen = [i for i in range(5000) if i % 3 == 0]
    spots = build_spots(chosen, xs, ys)
    assert len(spots) == len(chosen)
    for view in ((0.0, 0.0, 50_000.0, 80_000.0), (1000.0, 2000.0, 4000.0, 9000.0),
                 (-500.0, 70_000.0, 300.0, 90_000.0), (60_000.0, 0.0, 70_000.0, 10.0)):
        want = {i for i in chosen if _inside(view, xs[i], ys[i])}
        assert set(spots.query(view, 10**9)) == want
        limited = list(spots.query(view, 7))
        assert len(limited) == min(7, len(want)) and set(limited) <= want


@pytest.fixture(scope="module")
def bushy_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("bushy") / "bushy.db"
    with Store(path) as store:
        cid = generated_conversation(store, N, seed=9, branch=0.3)
    return path, cid


@pytest.fixture
def bushy(qtbot: QtBot, bushy_db: tuple[Path, int]) -> Iterator[TreeGraphWidget]:
    with loaded_graph(qtbot, *bushy_db, (900, 700)) as w:
        yield w


def test_a_zoomed_out_frame_looks_at_a_bounded_number_of_branch_points(
    bushy: TreeGraphWidget,
) -> None:
    item = bushy.view.item
    assert item is not None
    assert len(item.geometry.spots.branches) > 10 * MAX_BRANCH_LABELS, "a bushy tree"
    bushy.fit()
    paint_frame(bushy)
    assert item.last_lod == Lod.OVERVIEW
    view = bushy.view.mapToScene(bushy.view.viewport().rect()).boundingRect()
    box = (view.left(), view.top(), view.right(), view.bottom())
    seen = list(item.geometry.spots.branches.query(box, MAX_BRANCH_LABELS + 1))
    assert len(seen) == MAX_BRANCH_LABELS + 1, "the query stops once too many would pile up"
    assert item.labels.drawn <= 1 + 2 * 200, "the tip and capped names only: no branch counts"


def test_panning_at_the_overview_scales_its_image_once_per_zoom(
    bushy: TreeGraphWidget,
) -> None:
    item = bushy.view.item
    assert item is not None
    bushy.fit()
    bushy.view.zoom_by(0.9)
    paint_frame(bushy)
    paint_frame(bushy)  # the zoom rests
    assert item.last_lod == Lod.OVERVIEW
    scaled, minimap = item.overview_scaled, bushy.minimap.scaled_count
    for _ in range(8):
        bushy.view.pan_by(15, 9)
        paint_frame(bushy)
        bushy.minimap.repaint()
    assert item.overview_scaled == scaled, "a pan draws the cached image pixel for pixel"
    assert bushy.minimap.scaled_count == minimap <= 1, "the minimap scales its image once"
    bushy.view.zoom_by(0.9)
    paint_frame(bushy)
    assert item.overview_scaled == scaled, "a zoom step draws a mip scaled by the painter"
    paint_frame(bushy)  # the zoom rests
    assert item.overview_scaled == scaled + 1, "the resting zoom scales the image, once"


def test_overview_mips_halve_down_to_a_small_side(bushy: TreeGraphWidget) -> None:
    g = bushy.view.item.geometry if bushy.view.item is not None else None
    assert g is not None and g.mips
    sides = [max(g.overview.width(), g.overview.height())] + [
        max(m.width(), m.height()) for m in g.mips]
    assert all(b <= a // 2 + 1 for a, b in pairwise(sides))
    assert 128 <= sides[-1] <= 256
    half = g.overview_at(g.overview.width() / 3, g.overview.height() / 3)
    assert abs(half.width() - g.overview.width() / 3) <= 1


def test_labels_are_stamped_once_and_blitted_on_later_frames(bushy: TreeGraphWidget) -> None:
    item = bushy.view.item
    assert item is not None
    bushy.view.set_scale(0.3)
    bushy.view.center_on_node(item.model.tip)
    paint_frame(bushy)
    assert item.labels.drawn > 0
    stamped = item.labels.stamped
    assert 0 < stamped <= item.labels.drawn
    for _ in range(4):
        bushy.view.pan_by(3, 2)
        paint_frame(bushy)
    assert item.labels.stamped == stamped, "a pan draws the same labels from their stamps"


def test_the_graph_palette_is_made_once_per_theme() -> None:
    assert palette_for_application() is palette_for_application()
