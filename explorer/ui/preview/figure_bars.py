"""The context figure's bars, drawn once per figure, size and theme and then only copied.

Every paint of the window over the panel (a scroll, a hover, the transcript's repaint)
used to lay the three rows, their names and the threshold out again; the figure only
changes when a new one arrives. The bars are therefore rendered into a pixmap kept for
the figure, the widget's size, its device pixel ratio and its palette, and a paint
that finds them unchanged draws that pixmap.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QWidget

from explorer.ui.graph.palette import is_dark

COLOURS: dict[str, str] = {
    "system": "#7e57c2", "tools": "#ef6c00", "user": "#1e88e5", "assistant": "#43a047",
    "tool_results": "#f9a825", "images": "#d81b60", "snapshots": "#00897b",
    "overhead": "#8d6e63", "free": "#e0e0e0",
}
MEASURED_COLOUR = "#546e7a"
COLOURS["measured"] = MEASURED_COLOUR
CACHE_COLOURS: dict[str, str] = {"read": "#26a69a", "written": "#ffa726", "uncached": "#90a4ae"}
LABEL_WIDTH = 76
WARNING_COLOUR = "#c62828"
ROW_HEIGHT = 18
DARK_FREE = "#3b4048"  # the empty part of the window on a dark palette
ROWS = ("estimated", "measured", "cache")


def free_colour(widget: QWidget) -> QColor:
    """The bar's empty part: light grey on a light palette, dark grey on a dark one."""
    return QColor(DARK_FREE) if is_dark(widget.palette()) else QColor(COLOURS["free"])


def paint_segments(painter: QPainter, rect: QRectF, segments: Sequence[tuple[str, int]],
                   total: int, colours: dict[str, str]) -> None:
    """Fill ``rect`` left to right with one run per segment, ``total`` tokens = full width."""
    unit = rect.width() / max(total, 1)
    x = rect.left()
    for name, tokens in segments:
        width = tokens * unit
        painter.fillRect(QRectF(x, rect.top(), width, rect.height()), QColor(colours[name]))
        x += width


class FigureBars(QWidget):
    """Three rows: the estimate by part, the measured total and the next request's cache,
    with the threshold line; ``renders`` counts how often they were drawn afresh."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.estimated: list[tuple[str, int]] = []
        self.measured: int | None = None
        self.scale_total = 1
        self.threshold: int | None = None
        self.warning = False
        self.cache: list[tuple[str, int]] = []  # read, written, uncached of the next request
        self.setMinimumHeight(3 * ROW_HEIGHT + 10)
        self.setMinimumWidth(LABEL_WIDTH + 200)
        self.renders = 0
        self._pixmap: QPixmap | None = None
        self._drawn: tuple[object, ...] = ()

    def _key(self) -> tuple[object, ...]:
        """Everything the drawing depends on: the figure, the size and the palette."""
        palette = self.palette()
        return (tuple(self.estimated), self.measured, self.scale_total, self.threshold,
                self.warning, tuple(self.cache), self.width(), self.height(),
                self.devicePixelRatioF(), palette.cacheKey(), self.font().key())

    def paintEvent(self, event: QPaintEvent) -> None:
        key = self._key()
        if self._pixmap is None or key != self._drawn:
            self._pixmap = self._render()
            self._drawn = key
        p = QPainter(self)
        p.drawPixmap(0, 0, self._pixmap)
        p.end()

    def _render(self) -> QPixmap:
        self.renders += 1
        ratio = self.devicePixelRatioF()
        pixmap = QPixmap(round(self.width() * ratio), round(self.height() * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(self.palette().color(QPalette.ColorRole.Window))
        p = QPainter(pixmap)
        p.setFont(self.font())
        self._draw(p)
        p.end()
        return pixmap

    def _draw(self, p: QPainter) -> None:
        left, w = LABEL_WIDTH, self.width() - LABEL_WIDTH - 1
        rows = tuple(QRectF(left, i * (ROW_HEIGHT + 4), w, ROW_HEIGHT) for i in range(3))
        free = free_colour(self)
        colours = {**COLOURS, "free": free.name(), **CACHE_COLOURS}
        text = self.palette().color(QPalette.ColorRole.WindowText)
        p.setPen(text)
        for row, name in zip(rows, ROWS, strict=True):
            p.fillRect(row, free)
            p.drawText(QRectF(0, row.top(), left - 6, ROW_HEIGHT),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), name)
        paint_segments(p, rows[0], self.estimated, self.scale_total, colours)
        if self.measured is not None:
            paint_segments(p, rows[1], [("measured", self.measured)], self.scale_total, colours)
        paint_segments(p, rows[2], self.cache, self.scale_total, colours)
        if self.threshold is not None:
            colour = QColor(WARNING_COLOUR) if self.warning else text
            p.setPen(QPen(colour, 2, Qt.PenStyle.DashLine))
            tx = round(left + self.threshold * w / max(self.scale_total, 1))
            p.drawLine(tx, 0, tx, self.height())
        border = QColor(WARNING_COLOUR) if self.warning else self.palette().color(
            QPalette.ColorRole.Mid)
        p.setPen(QPen(border, 2 if self.warning else 1))
        p.drawRect(QRectF(left, 0, w, 3 * ROW_HEIGHT + 8))
