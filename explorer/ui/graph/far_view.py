"""A big tree's structure at fit-all, drawn at a fixed on-screen size (V3).

When rows are closer than a couple of pixels the overview is one stroke. Over it go: a
density strip left of the tree (how many nodes each band of rows holds), the active path
as a solid line, a tick right of every branch point as long as the branches leaving it
are big (on a log scale, so a one-message retry and a 2,000-message exploration differ at
a glance), and a dot for every checkpoint, rewind, compaction and fork. Glyphs that land
on the same pixel row are drawn once, so a frame costs the screen's height, not the
tree's size. The minimap draws the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF

from explorer.app.graph.far_marks import SPOT_FLAGS, FarMarks, far_marks
from explorer.app.graph.model import ROW_H, GraphModel
from explorer.ui.graph.palette import GraphPalette

if TYPE_CHECKING:
    import numpy as np

ROW_PX_FAR = 2.0
"""Rows closer than this on screen: the structure is drawn over the overview."""
STRIP_PX, STRIP_GAP, BAND_PX = 6, 16, 3
TICK_MIN, TICK_PX_PER_DOUBLING, TICK_MAX = 2.0, 5.0, 60.0
SMALL_BRANCH = 4  # messages: a retry or a regenerated answer, drawn light
DOT_R = 3.0

ToScreen = Callable[[float, float], tuple[float, float]]


def tick_length(weight: int) -> float:
    """Pixels for the messages leaving a branch point: 1 → 2, 4 → 12, 64 → 32, 1,000 → ~52."""
    return min(TICK_MAX, TICK_MIN + TICK_PX_PER_DOUBLING * math.log2(max(weight, 1)))


def spot_color(palette: GraphPalette, kind: int) -> QColor:
    name = SPOT_FLAGS[kind][1]
    return QColor({"checkpoint": palette.checkpoint, "rewind": palette.rewind,
                   "compaction": palette.compaction, "fork": palette.fork}[name])


def paint_far(painter: QPainter, marks: FarMarks, ys: np.ndarray, palette: GraphPalette,
              to_screen: ToScreen, bounds: tuple[float, float, float, float],
              clip: QRectF) -> int:
    """Everything in device pixels (the painter's transform is left alone by the caller's
    save/restore); returns how many glyphs were drawn (tests and benchmarks read it)."""
    drawn = _density(painter, ys, palette, to_screen, bounds, clip)
    drawn += _active(painter, marks, palette, to_screen, clip)
    drawn += _branches(painter, marks, palette, to_screen, clip)
    drawn += _spots(painter, marks, palette, to_screen, clip)
    return drawn


def _density(painter: QPainter, ys: np.ndarray, palette: GraphPalette, to_screen: ToScreen,
             bounds: tuple[float, float, float, float], clip: QRectF) -> int:
    left, top, _right, bottom = bounds
    x0, y0 = to_screen(left, top)
    _x1, y1 = to_screen(left, bottom)
    bands = max(1, int((y1 - y0) / BAND_PX))
    if bands < 2 or len(ys) == 0:
        return 0
    import numpy as np  # loaded with the first far view, not with the window

    counts, _edges = np.histogram(ys, bins=bands, range=(top, bottom))
    peak = math.log1p(float(counts.max()))
    color = QColor(palette.muted_text)
    x = x0 - STRIP_GAP - STRIP_PX
    drawn = 0
    for k, n in enumerate(counts.tolist()):
        if not n:
            continue
        y = y0 + k * (y1 - y0) / bands
        if y + BAND_PX < clip.top() or y > clip.bottom():
            continue
        color.setAlphaF(0.1 + 0.7 * math.log1p(n) / peak)
        painter.fillRect(QRectF(x, y, STRIP_PX, BAND_PX + 0.5), color)
        drawn += 1
    return drawn


def _active(painter: QPainter, marks: FarMarks, palette: GraphPalette, to_screen: ToScreen,
            clip: QRectF) -> int:
    points: list[QPointF] = []
    last_row = None
    for x, y in zip(marks.active_x, marks.active_y, strict=True):
        sx, sy = to_screen(x, y)
        row = int(sy)
        if row == last_row:  # one point a pixel row
            continue
        last_row = row
        points.append(QPointF(sx, sy))
    if len(points) < 2:
        return 0
    painter.setPen(QPen(palette.active, 2.0, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    painter.drawPolyline(QPolygonF(points))
    return 1


def _branches(painter: QPainter, marks: FarMarks, palette: GraphPalette,
              to_screen: ToScreen, clip: QRectF) -> int:
    """Small branches light and short, big ones dark and long; one tick a pixel row."""
    longest: dict[int, tuple[float, float, int]] = {}  # pixel row → (x, y, weight)
    for x, y, weight in zip(marks.branch_x, marks.branch_y, marks.branch_weight, strict=True):
        sx, sy = to_screen(x, y)
        if not clip.top() - 2 <= sy <= clip.bottom() + 2:
            continue
        row = int(sy)
        if row not in longest or longest[row][2] < weight:
            longest[row] = (sx, sy, weight)
    light = QColor(palette.edge)
    for small, color in ((True, light), (False, palette.badge)):
        painter.setPen(QPen(color, 1.5 if small else 2.0, Qt.PenStyle.SolidLine,
                            Qt.PenCapStyle.FlatCap))
        for sx, sy, weight in longest.values():
            if (weight < SMALL_BRANCH) == small:
                painter.drawLine(QPointF(sx + 3, sy), QPointF(sx + 3 + tick_length(weight), sy))
    return len(longest)


def _spots(painter: QPainter, marks: FarMarks, palette: GraphPalette, to_screen: ToScreen,
           clip: QRectF) -> int:
    seen: set[tuple[int, int]] = set()
    painter.setPen(QPen(palette.background, 1.0))
    for x, y, kind in zip(marks.spot_x, marks.spot_y, marks.spot_kind, strict=True):
        sx, sy = to_screen(x, y)
        key = (int(sy), kind)
        if key in seen or not clip.top() - DOT_R <= sy <= clip.bottom() + DOT_R:
            continue
        seen.add(key)
        painter.setBrush(spot_color(palette, kind))
        painter.drawEllipse(QPointF(sx - 8, sy), DOT_R, DOT_R)
    return len(seen)


class FarPainter:
    """The far view's marks for the tree on screen, read the first time they are needed."""

    def __init__(self) -> None:
        self._model: object | None = None
        self.marks: FarMarks | None = None
        self._ys: np.ndarray | None = None
        self.drawn = 0  # glyphs in the last far frame (0: the tree reads without them)

    def prepared(self, model: GraphModel) -> tuple[FarMarks, np.ndarray]:
        if self._model is not model or self.marks is None or self._ys is None:
            import numpy as np  # loaded with the first far view, not with the window

            self.marks, self._model = far_marks(model), model
            self._ys = np.frombuffer(model.ys, dtype=np.float64)
        return self.marks, self._ys

    def paint(self, painter: QPainter, model: GraphModel, palette: GraphPalette,
              exposed: QRectF) -> None:
        t = painter.worldTransform()
        if t.m11() * ROW_H >= ROW_PX_FAR or len(model) == 0:
            self.drawn = 0
            return
        marks, ys = self.prepared(model)
        clip = t.mapRect(exposed)
        sx, sy, dx, dy = t.m11(), t.m22(), t.dx(), t.dy()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self.drawn = paint_far(painter, marks, ys, palette,
                               lambda x, y: (x * sx + dx, y * sy + dy), model.bounds, clip)
        painter.restore()
