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

from explorer.ui.graph.model import (
    BOX_H,
    BOX_W,
    COL_W,
    F_ACTIVE,
    F_SIDE,
    F_TIP,
    MARK_FLAGS,
    ROW_H,
    GraphModel,
)
from explorer.ui.graph.packed import polygon, segments
from explorer.ui.graph.palette import GraphPalette
from explorer.ui.graph.spots import LabelSpots, build_label_spots, no_label_spots

BATCH_COLS = 64  # coarse cell size in layout columns and rows
BATCH_ROWS = 32
OVERVIEW_MAX_SIDE = 4096
OVERVIEW_MAX_AREA = 4096 * 1024
DOTS_MAX_SCALE = 0.09  # above this scale nodes are boxes, not dots
MIP_MIN_SIDE = 256

_BW, _BH = COL_W * BATCH_COLS, ROW_H * BATCH_ROWS
Key = tuple[int, int]


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
        c0, r0 = _key(left - COL_W, top - ROW_H)
        c1, r1 = _key(right + COL_W, bottom + ROW_H)
        got = self.batches.get
        return [b for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)
                if (b := got((c, r))) is not None]


def _key(x: float, y: float) -> Key:
    return math.floor(x / _BW), math.floor(y / _BH)


class _Collector:
    """Coordinates gathered per cell before they become polygons."""

    def __init__(self) -> None:
        self.cells: dict[Key, dict[str, array[float]]] = {}

    def add(self, key: Key, kind: str, *coords: float) -> None:
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = {}
        buf = cell.get(kind)
        if buf is None:
            buf = cell[kind] = array("d")
        buf.extend(coords)

    def span(self, kind: str, row_y: float, x0: float, x1: float, y: float) -> None:
        """A horizontal line split at cell borders, so each piece is culled with its cell."""
        r = math.floor(row_y / _BH)
        x = x0
        while x < x1:
            c = math.floor(x / _BW)
            end = min(x1, (c + 1) * _BW)
            self.add((c, r), kind, x, y, end, y)
            x = end


def build_geometry(
    model: GraphModel, palette: GraphPalette, cancelled: Callable[[], bool] = lambda: False
) -> Geometry:
    col = _Collector()
    _collect_dots(model, col)
    if cancelled():
        return Geometry({}, QImage(), 0.0)
    _collect_edges(model, col)
    batches = {key: _batch(parts) for key, parts in col.cells.items()}
    image, scale = _overview(model, batches, palette)
    marked, branches, sides = _label_nodes(model)
    return Geometry(batches, image, scale, marked, branches, sides,
                    build_label_spots(model, sides, branches), _mips(image))


def _mips(image: QImage) -> tuple[QImage, ...]:
    out: list[QImage] = []
    while not image.isNull() and max(image.width(), image.height()) > MIP_MIN_SIDE:
        image = image.scaled(max(1, image.width() // 2), max(1, image.height() // 2),
                             Qt.AspectRatioMode.IgnoreAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
        out.append(image)
    return tuple(out)


def _label_nodes(model: GraphModel) -> tuple[array[int], array[int], array[int]]:
    """Nodes labelled at every zoom: marks and the tip, branch points, subagent starts."""
    flags = model.flags
    marked = array("i", (i for i in range(len(model)) if flags[i] & (MARK_FLAGS | F_TIP)))
    start = model.child_start
    many = array("i", (i for i in range(len(model)) if start[i + 1] - start[i] > 1))
    branches = array("i", (i for i in many if model.branch_count(i) > 1))
    sides = array("i", (i for i in range(len(model)) if flags[i] & F_SIDE))
    return marked, branches, sides


def _collect_dots(model: GraphModel, col: _Collector) -> None:
    xs, ys, styles, flags = model.xs, model.ys, model.styles, model.flags
    for i in range(len(model)):
        x, y = xs[i], ys[i]
        key = (math.floor(x / _BW), math.floor(y / _BH))
        col.add(key, f"s{styles[i]}", x, y)
        if flags[i] & F_ACTIVE:
            col.add(key, "active_dots", x, y)


def _collect_edges(model: GraphModel, col: _Collector) -> None:
    """Elbow edges: parent stub, one span per parent, a stub per child."""
    xs, ys, flags, half = model.xs, model.ys, model.flags, BOX_H / 2
    for p in range(len(model)):
        kids = model.children(p)
        if not kids:
            continue
        xp, yp = xs[p], ys[p]
        key = _key(xp, yp)
        if any(flags[c] & F_SIDE for c in kids):
            _collect_side_edges(model, col, p)
            kids = array("i", (c for c in kids if not flags[c] & F_SIDE))
            if not kids:
                continue
        if len(kids) == 1 and xs[kids[0]] == xp:  # a straight run: one segment
            c = kids[0]
            kind = "active_edges" if flags[c] & F_ACTIVE else "edges"
            col.add(_key(xs[c], ys[c]), kind, xp, yp + half, xp, ys[c] - half)
            continue
        ym = yp + ROW_H / 2
        col.add(key, "edges", xp, yp + half, xp, ym)
        kid_xs = [xs[c] for c in kids]  # in the model's order, not always left to right
        col.span("edges", yp, min(xp, *kid_xs), max(xp, *kid_xs), ym)
        for c in kids:
            xc = xs[c]
            active = flags[c] & F_ACTIVE
            col.add(_key(xc, ys[c]), "active_edges" if active else "edges",
                    xc, ym, xc, ys[c] - half)
            if active:
                col.add(key, "active_edges", xp, yp + half, xp, ym)
                col.span("active_edges", yp, min(xp, xc), max(xp, xc), ym)


def _collect_side_edges(model: GraphModel, col: _Collector, p: int) -> None:
    """From the right side of the spawning node across, then down to the subagent's first node."""
    xs, ys, flags = model.xs, model.ys, model.flags
    xp, yp = xs[p] + BOX_W / 2, ys[p]
    for c in model.children(p):
        if flags[c] & F_SIDE:
            xc, yc = xs[c], ys[c] - BOX_H / 2
            col.span("side_edges", yp, min(xp, xc), max(xp, xc), yp)
            col.add(_key(xc, ys[c]), "side_edges", xc, yp, xc, yc)


def _batch(parts: dict[str, array[float]]) -> Batch:
    empty = array("d")
    dots = tuple(sorted((int(k[1:]), polygon(v)) for k, v in parts.items()
                        if k[0] == "s" and k[1:].isdigit()))
    return Batch(dots, polygon(parts.get("active_dots", empty)),
                 segments(parts.get("edges", empty)), segments(parts.get("active_edges", empty)),
                 segments(parts.get("side_edges", empty)))


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
