"""What one pan or zoom step of the graph does on the main thread, counted (not timed):
tiles painted, box texts elided, labels measured, overlays redrawn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from graph_trees import generated_conversation, loaded_graph, paint_frame
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QImage, QPainter, QWheelEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph.item import NEW_TEXTS_PER_FRAME, Lod
from explorer.ui.graph.tiles import NEW_PER_FRAME, TILE_PX

N = 8_000


@pytest.fixture(scope="module")
def tree_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("frames") / "tree.db"
    with Store(path) as store:
        cid = generated_conversation(store, N, seed=4, branch=0.3)
    return path, cid


@pytest.fixture
def graph(qtbot: QtBot, tree_db: tuple[Path, int]) -> Iterator[TreeGraphWidget]:
    with loaded_graph(qtbot, *tree_db, (900, 700)) as w:
        yield w


def _view(w: TreeGraphWidget) -> tuple[float, float, float, float]:
    r = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    return r.left(), r.top(), r.right(), r.bottom()


def _settle_tiles(w: TreeGraphWidget) -> int:
    """Frames until no tile is missing; each frame paints at most NEW_PER_FRAME new ones."""
    item = w.view.item
    assert item is not None
    frames = 0
    while True:
        before = item.tiles.rendered
        paint_frame(w)
        frames += 1
        assert item.tiles.rendered - before <= NEW_PER_FRAME
        if item.tiles.missing == 0:
            return frames
        assert frames < 200


def _centre_on_busiest(w: TreeGraphWidget, scale: float) -> None:
    """Zoom to ``scale`` over the busiest of a sample of nodes (the most boxes around)."""
    item = w.view.item
    assert item is not None
    w.view.set_scale(scale)
    best, most = 0, -1
    for i in range(0, len(item.model), max(1, len(item.model) // 60)):
        w.view.center_on_node(i)
        around = sum(1 for _ in item.model.visible(*_view(w)))
        if around > most:
            best, most = i, around
    w.view.center_on_node(best)


def _tiles_at(w: TreeGraphWidget, level: float) -> int:
    """How many tiles cover the view over the busiest part at ``level``."""
    item = w.view.item
    assert item is not None
    _centre_on_busiest(w, level)
    return len(item.tiles.keys_for(level, _view(w)))


def test_V2_a_zoom_step_paints_no_new_tile_and_shows_the_coarser_ones_until_it_rests(
    graph: TreeGraphWidget,
) -> None:
    item = graph.view.item
    assert item is not None and len(item.tiles.levels) >= 3, "the tree has a tile band"
    levels = item.tiles.levels
    k = next(k for k in range(1, len(levels) - 2) if _tiles_at(graph, levels[k]) > NEW_PER_FRAME)
    graph.view.set_scale(levels[k])
    assert _settle_tiles(graph) > 1, "a whole view of tiles takes several frames"
    assert item.last_lod == Lod.DOTS
    graph.view.set_scale(levels[k + 1])  # one step in, around the same centre
    before, stood = item.tiles.rendered, item.tiles.stood_in
    paint_frame(graph)
    assert item.tiles.rendered == before, "the step only scales tiles already made"
    assert item.tiles.missing > 0, "the new level is not painted in one frame"
    assert item.tiles.stood_in > stood, "the previous zoom's tiles stand in, scaled"
    paint_frame(graph)  # the zoom rests: new tiles come, a bounded number a frame
    assert 0 < item.tiles.rendered - before <= NEW_PER_FRAME
    _settle_tiles(graph)


def test_V2_a_zoom_step_at_the_overview_scales_no_image_and_the_resting_frame_does(
    graph: TreeGraphWidget,
) -> None:
    item = graph.view.item
    assert item is not None
    graph.fit()
    paint_frame(graph)
    paint_frame(graph)
    assert item.last_lod == Lod.OVERVIEW
    scaled, stood = item.overview_scaled, item.overview_stood_in
    for _ in range(3):  # a zoom, step by step: the mips stand in, scaled by the painter
        graph.view.zoom_by(1.05)
        paint_frame(graph)
        assert item.last_lod == Lod.OVERVIEW
    assert item.overview_scaled == scaled
    assert item.overview_stood_in == stood + 3
    paint_frame(graph)
    paint_frame(graph)
    assert item.overview_scaled == scaled + 1, "the exact image is made once, at rest"


def test_V2_the_graph_has_no_scrollbars_to_repaint_and_still_scrolls(
    qtbot: QtBot, graph: TreeGraphWidget,
) -> None:
    view = graph.view
    assert view.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert view.verticalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert not view.verticalScrollBar().isVisible()
    view.set_scale(1.0)
    view.center_on_node(0)
    bar = view.verticalScrollBar()
    before = bar.value()
    pos = QPointF(view.viewport().rect().center())
    wheel = QWheelEvent(pos, view.viewport().mapToGlobal(pos), QPoint(0, 0), QPoint(0, -240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view.viewport(), wheel)
    assert bar.value() > before, "the wheel scrolls the tree"
    graph.view.pan_by(0, -30)
    assert bar.value() < before + 1000


def test_V2_a_pan_paints_only_the_tiles_it_newly_exposes(graph: TreeGraphWidget) -> None:
    item = graph.view.item
    assert item is not None and item.tiles.levels
    level = item.tiles.levels[2]
    _centre_on_busiest(graph, level)
    _settle_tiles(graph)
    start = item.tiles.rendered
    graph.view.pan_by(int(TILE_PX * 0.6), 0)
    exposed = [k for k in item.tiles.keys_for(level, _view(graph)) if not item.tiles.has(k)]
    _settle_tiles(graph)
    assert 0 < item.tiles.rendered - start <= len(exposed) + 2, "only the new strip"
    assert all(item.tiles.has(k) for k in exposed)
    again = item.tiles.rendered
    graph.view.pan_by(-int(TILE_PX * 0.6), 0)  # back: every tile is still kept
    paint_frame(graph)
    graph.view.pan_by(5, 3)  # a small step inside the same tiles
    paint_frame(graph)
    assert item.tiles.rendered == again, "tiles are reused across pans"


def test_V2_a_frame_elides_a_bounded_number_of_new_box_texts(graph: TreeGraphWidget) -> None:
    item = graph.view.item
    assert item is not None
    _centre_on_busiest(graph, 0.5)
    before = item.texts_made
    paint_frame(graph)
    assert item.last_lod == Lod.TEXT
    shown = len(list(item.model.visible(*_view(graph))))
    assert shown > NEW_TEXTS_PER_FRAME, "more boxes on screen than one frame elides"
    assert item.texts_made - before == NEW_TEXTS_PER_FRAME and item.texts_missing > 0
    for _ in range(shown // NEW_TEXTS_PER_FRAME + 2):
        paint_frame(graph)
    assert item.texts_missing == 0
    made = item.texts_made
    assert made <= shown + NEW_TEXTS_PER_FRAME
    for _ in range(3):
        graph.view.pan_by(2, 1)
        paint_frame(graph)
    assert item.texts_made == made, "a box's text is elided once, not every frame"


def test_V2_labels_are_measured_once_per_node_and_overlays_drawn_once(
    graph: TreeGraphWidget,
) -> None:
    item = graph.view.item
    assert item is not None
    graph.view.set_scale(0.2)
    graph.view.center_on_node(item.model.tip)
    paint_frame(graph)
    assert item.labels.drawn > 1, "the tip and branch counts"
    graph.view.pan_by(7, 4)
    paint_frame(graph)
    made = item.labels.made
    for step in range(6):  # back and forth over the same nodes
        graph.view.pan_by(-7 if step % 2 == 0 else 7, -4 if step % 2 == 0 else 4)
        paint_frame(graph)
        graph.legend.repaint()
        graph.minimap.repaint()
    assert item.labels.made == made, "a pan measures no label again: it only places them"
    assert graph.legend.drawn == 1, "the legend is blitted, not drawn, on every frame"
    assert graph.minimap.scaled_count == 1


def _frame(w: TreeGraphWidget) -> QImage:
    image = QImage(w.view.viewport().size(), QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    w.view.render(painter, QRectF(image.rect()), w.view.viewport().rect())
    painter.end()
    return image


def _pixels_differing(a: QImage, b: QImage) -> int:
    assert a.size() == b.size() and a.format() == b.format()
    pa = memoryview(bytes(a.constBits())).cast("I")
    pb = memoryview(bytes(b.constBits())).cast("I")
    return sum(1 for x, y in zip(pa, pb, strict=True) if x != y)


@pytest.mark.parametrize("scale", [0.3, 0.8])  # boxes, and boxes with text
def test_V2_a_pan_up_close_paints_only_the_strips_it_exposes_and_looks_the_same(
    graph: TreeGraphWidget, scale: float,
) -> None:
    item = graph.view.item
    assert item is not None
    _centre_on_busiest(graph, scale)
    for _ in range(60):  # the zoom rests and every box text is in
        paint_frame(graph)
        if item.texts_missing == 0 and item.frames.whole:
            break
    paint_frame(graph)
    assert item.last_lod >= Lod.BOXES and item.last_drawn > 0
    whole, strips, painted = item.frames.whole, item.frames.strips, item.boxes_painted
    shown = item.last_drawn
    graph.view.pan_by(37, 23)
    kept = _frame(graph)
    assert item.frames.whole == whole, "the pan keeps the frame"
    assert item.frames.strips == strips + 2, "one strip across, one down"
    assert item.boxes_painted - painted < shown, "only the boxes in the new strips"
    item.frames.drop()
    again = _frame(graph)
    differ = _pixels_differing(kept, again)
    assert differ <= kept.width() * kept.height() // 10_000, \
        "the kept frame is what painting it whole gives (but for antialiasing rounding)"
    item.frames.drop()
    item.forget_texts([])
    before = item.boxes_painted
    graph.view.set_scale(scale * 1.2)
    paint_frame(graph)
    assert item.boxes_painted > before, "a zoom step paints the tree whole"
