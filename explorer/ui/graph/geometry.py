"""Pre-batched drawing geometry: dots and edges per coarse cell, and the overview image.

Coordinates go from flat ``array('d')`` buffers straight into ``QPolygonF`` (dots) and
``QPainterPath`` (edges) through ``packed``, so no Python object is made per point;
painting a cell is then a few ``drawPoints``/``strokePath`` calls whatever the number
of nodes in it. All of it is plain value types and ``QImage``, safe to build on a
worker thread.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen, QPolygonF

from explorer.app.graph.cells import Collected, Key, cell_key, collect
from explorer.app.graph.spots import LabelSpots, no_label_spots
from explorer.ui.graph.model import COL_W, ROW_H, GraphModel
from explorer.ui.graph.packed import path_from, polygon_from
from explorer.ui.graph.palette import GraphPalette

OVERVIEW_MAX_SIDE = 4096
OVERVIEW_MAX_AREA = 4096 * 1024
DOTS_MAX_SCALE = 0.09  # above this scale nodes are boxes, not dots
MIP_MIN_SIDE = 256
_NO_POINTS = bytes(4)  # a streamed polygon of no points


@dataclass(frozen=True, eq=False)
class Batch:
    """One coarse cell: dots per style, edges and active-path edges as paths of segments."""

    dots: tuple[tuple[int, QPolygonF], ...]
    active_dots: QPolygonF
    edges: QPainterPath
    active_edges: QPainterPath
    side_edges: QPainterPath  # dashed: a subagent's link to the call that started it


@dataclass(frozen=True, eq=False)
class Geometry:
    batches: dict[Key, Batch]
    overview: QImage
    overview_scale: float  # image pixels per scene unit
    marked: array[int] = field(default_factory=lambda: array("i"))  # nodes with a mark or tip
    branches: array[int] = field(default_factory=lambda: array("i"))  # own branch points
    sides: array[int] = field(default_factory=lambda: array("i"))  # subagent starts
    spots: LabelSpots = field(default_factory=no_label_spots)  # the above, found fast
    mips: tuple[QImage, ...] = ()  # the overview halved again and again, down to ~256 px

    def overview_source(self, width: float, height: float) -> QImage:
        """The smallest of the overview and its mips at least ``width`` × ``height``."""
        source = self.overview
        for mip in self.mips:
            if mip.width() < width or mip.height() < height:
                break
            source = mip
        return source

    def overview_at(self, width: float, height: float) -> QImage:
        """The overview scaled to ``width`` × ``height`` pixels, from the nearest mip above,
        so scaling reads at most twice the pixels it writes."""
        source = self.overview_source(width, height)
        size = QSize(max(1, round(width)), max(1, round(height)))
        if source.isNull() or source.size() == size:
            return source
        return source.scaled(size, Qt.AspectRatioMode.IgnoreAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)

    def batches_in(self, left: float, top: float, right: float, bottom: float) -> list[Batch]:
        c0, r0 = cell_key(left - COL_W, top - ROW_H)
        c1, r1 = cell_key(right + COL_W, bottom + ROW_H)
        got = self.batches.get
        return [b for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)
                if (b := got((c, r))) is not None]


def build_geometry(
    model: GraphModel, palette: GraphPalette, cancelled: Callable[[], bool] = lambda: False,
    collected: Collected | None = None,
) -> Geometry:
    """``collected``: the cells another process gathered (they are gathered here if not)."""
    got = collected if collected is not None else collect(model, cancelled)
    if got is None:
        return Geometry({}, QImage(), 0.0)
    batches = {key: _batch(parts) for key, parts in got.cells.items()}
    image, scale = _overview(model, batches, palette)
    return Geometry(batches, image, scale, got.marked, got.branches, got.sides, got.spots,
                    _mips(image))


def _mips(image: QImage) -> tuple[QImage, ...]:
    out: list[QImage] = []
    while not image.isNull() and max(image.width(), image.height()) > MIP_MIN_SIDE:
        image = image.scaled(max(1, image.width() // 2), max(1, image.height() // 2),
                             Qt.AspectRatioMode.IgnoreAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
        out.append(image)
    return tuple(out)


def _batch(parts: dict[str, bytes]) -> Batch:
    dots = tuple(sorted((int(k[1:]), polygon_from(v)) for k, v in parts.items()
                        if k[0] == "s" and k[1:].isdigit()))
    return Batch(dots, polygon_from(parts.get("active_dots", _NO_POINTS)),
                 path_from(parts.get("edges", b"")), path_from(parts.get("active_edges", b"")),
                 path_from(parts.get("side_edges", b"")))


def overview_scale_for(model: GraphModel) -> float:
    left, top, right, bottom = model.bounds
    w, h = max(right - left, 1.0), max(bottom - top, 1.0)
    return min(OVERVIEW_MAX_SIDE / w, OVERVIEW_MAX_SIDE / h,
               math.sqrt(OVERVIEW_MAX_AREA / (w * h)), DOTS_MAX_SCALE)


def _overview(
    model: GraphModel, batches: dict[Key, Batch], palette: GraphPalette
) -> tuple[QImage, float]:
    """The whole tree drawn once at a small scale: what fit-to-view paints when zoomed out."""
    scale = overview_scale_for(model)
    left, top, right, bottom = model.bounds
    w = max(1, math.ceil((right - left) * scale))
    h = max(1, math.ceil((bottom - top) * scale))
    image = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.scale(scale, scale)
    painter.translate(-left, -top)
    paint_batches(painter, list(batches.values()), palette, dot_px=2.0)
    painter.end()
    return image, scale


def cosmetic(color: QColor, width: float) -> QPen:
    pen = QPen(color)
    pen.setWidthF(width)
    pen.setCosmetic(True)
    pen.setCapStyle(Qt.PenCapStyle.SquareCap)
    return pen


def paint_batches(
    painter: QPainter, batches: list[Batch], palette: GraphPalette, dot_px: float | None
) -> None:
    """Edges of the batches, then (when ``dot_px`` is given) their nodes as dots."""
    pen = cosmetic(palette.edge, 1.0)
    for b in batches:
        painter.strokePath(b.edges, pen)
    pen = cosmetic(palette.active, 2.0)
    for b in batches:
        painter.strokePath(b.active_edges, pen)
    pen = cosmetic(palette.agent, 1.5)
    pen.setStyle(Qt.PenStyle.DashLine)
    for b in batches:
        if not b.side_edges.isEmpty():
            painter.strokePath(b.side_edges, pen)
    if dot_px is None:
        return
    painter.setPen(cosmetic(palette.active, dot_px + 2.0))  # a halo under the active path
    for b in batches:
        painter.drawPoints(b.active_dots)
    for style, color in enumerate(palette.styles):
        painter.setPen(cosmetic(color, dot_px))
        for b in batches:
            for s, poly in b.dots:
                if s == style:
                    painter.drawPoints(poly)


def scene_rect(bounds: tuple[float, float, float, float]) -> QRectF:
    left, top, right, bottom = bounds
    return QRectF(left, top, right - left, bottom - top)
