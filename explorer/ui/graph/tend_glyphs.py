"""Tending drawn on the tree: folded and deleted branches, stale answers, merge links (T6, T7).

Hiding never happens without a trace: a branch point whose branches were archived
or deleted carries a chip ("▸ 2 archived", "✕ 1 deleted · undo") at the readable
zoom and a small glyph of fixed on-screen size when zoomed out, so the next
reader always sees that something is there. A stale answer (a prompt above it
was edited) gets an amber dashed outline, or a small triangle when far; a merge
message is tied to the side branch it digests by a dashed curve with an arrow,
drawn at every zoom.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF

from explorer.ui.graph.model import (
    BOX_H,
    BOX_W,
    COL_W,
    F_STALE,
    TEND_FLAGS,
    GraphModel,
)
from explorer.ui.graph.palette import GraphPalette

CHIP_PX = 11
GLYPH_PX = 4.0  # half the side of a far-zoom glyph
MAX_GLYPHS = 600  # far zoom: beyond this many in view, glyphs would only be noise
View = tuple[float, float, float, float]


def chip_texts(archived: int, deleted: int, full: bool) -> list[tuple[str, str]]:
    """(kind, text) of the chips one branch point carries."""
    out = []
    if archived:
        out.append(("archived", f"▸ {archived} archived" if full else f"▸ {archived}"))
    if deleted:
        out.append(("deleted", f"✕ {deleted} deleted · undo" if full else f"✕ {deleted}"))
    return out


class TendPainter:
    def __init__(self) -> None:
        self.font = QFont()
        self.font.setPixelSize(CHIP_PX)
        self.metrics = QFontMetricsF(self.font)
        self.chips: list[str] = []  # chip texts drawn in the last paint (for tests)
        self.glyphs = 0  # far-zoom glyphs drawn in the last paint
        self.links = 0  # merge links drawn in the last paint
        self.chip_boxes: list[tuple[QRectF, int, str]] = []  # (viewport box, node, kind)
        self._tended: tuple[int, list[int]] | None = None

    def _nodes(self, model: GraphModel) -> list[int]:
        """Positions of the nodes with a tending mark, found once per model."""
        if self._tended is None or self._tended[0] != id(model):
            flags = model.flags
            self._tended = (id(model), [i for i in range(len(model)) if flags[i] & TEND_FLAGS])
        return self._tended[1]

    def paint(self, painter: QPainter, model: GraphModel, pal: GraphPalette, view: View,
              boxes: bool, text: bool) -> None:
        """Chips and outlines, or far-zoom glyphs (and there the merge links too: up close
        the item draws them earlier, with ``paint_links``, under the boxes)."""
        self.chips, self.glyphs, self.chip_boxes = [], 0, []
        tended = [i for i in self._nodes(model) if _near(view, model.xs[i], model.ys[i])]
        if boxes:
            self._outline_stale(painter, model, pal, tended)
        else:
            self.paint_links(painter, model, pal, view, False)
        painter.save()
        world = painter.worldTransform()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setFont(self.font)
        folded = model.tending.folded
        if boxes:
            for i in tended:
                if i in folded:
                    self._chips(painter, world.map(QPointF(model.xs[i], model.ys[i])),
                                world.map(QPointF(model.xs[i], model.ys[i] + BOX_H / 2)),
                                folded[i], pal, text, i)
        elif len(tended) <= MAX_GLYPHS:
            for i in tended:
                self._glyphs(painter, world.map(QPointF(model.xs[i], model.ys[i])),
                             folded.get(i, (0, 0)), bool(model.flags[i] & F_STALE), pal)
        painter.restore()

    def _outline_stale(self, painter: QPainter, m: GraphModel, pal: GraphPalette,
                       tended: list[int]) -> None:
        pen = QPen(pal.stale, 2.0)
        pen.setCosmetic(True)
        pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for i in tended:
            if m.flags[i] & F_STALE:
                painter.drawRect(QRectF(m.xs[i] - BOX_W / 2 + 3, m.ys[i] - BOX_H / 2 + 3,
                                        BOX_W - 6, BOX_H - 6))

    def paint_links(self, painter: QPainter, m: GraphModel, pal: GraphPalette, view: View,
                    boxes: bool) -> None:
        """Side branch tip → merge message: a dashed curve out to the right, with an arrow."""
        self.links = 0
        pen = QPen(pal.merge, 2.0)
        pen.setCosmetic(True)
        pen.setStyle(Qt.PenStyle.DashLine)
        edge = BOX_W / 2 if boxes else 0.0
        for a, b in m.tending.merges:
            xa, ya, xb, yb = m.xs[a] + edge, m.ys[a], m.xs[b] + edge, m.ys[b]
            bulge = max(xa, xb) + COL_W * 0.6
            if not _crosses(view, min(xa, xb), min(ya, yb), bulge, max(ya, yb)):
                continue
            path = QPainterPath(QPointF(xa, ya))
            path.cubicTo(QPointF(bulge, ya), QPointF(bulge, yb), QPointF(xb, yb))
            painter.strokePath(path, pen)
            _arrow(painter, painter.worldTransform().map(QPointF(xb, yb)), pal.merge)
            self.links += 1

    def chip_at(self, x: float, y: float) -> tuple[int, str] | None:
        """(node, "archived" or "deleted") of the chip drawn under viewport point (x, y)."""
        return next(((i, kind) for box, i, kind in self.chip_boxes
                     if box.contains(QPointF(x, y))), None)

    def _chips(self, painter: QPainter, centre: QPointF, bottom: QPointF,
               counts: tuple[int, int], pal: GraphPalette, full: bool, node: int) -> None:
        """Chips under the box, ending left of where the branch count sits."""
        right = centre.x() - 4
        y = max(bottom.y(), centre.y() + 5) + 2
        back = QColor(pal.background)
        back.setAlpha(235)
        for kind, text in reversed(chip_texts(*counts, full)):
            color = pal.archived if kind == "archived" else pal.deleted
            w = self.metrics.horizontalAdvance(text) + 10
            box = QRectF(right - w, y, w, 15)
            pen = QPen(color, 1.2)
            if kind == "archived":
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(back)
            painter.drawRoundedRect(box, 4, 4)
            painter.setPen(color)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
            self.chips.append(text)
            self.chip_boxes.append((box, node, kind))
            right -= w + 3

    def _glyphs(self, painter: QPainter, c: QPointF, counts: tuple[int, int], stale: bool,
                pal: GraphPalette) -> None:
        g = GLYPH_PX
        if counts[0]:  # a folded branch: a hollow square below-left of the dot
            painter.setPen(QPen(pal.archived, 1.5))
            painter.setBrush(pal.background)
            painter.drawRect(QRectF(c.x() - 3 * g, c.y() + g, 2 * g, 2 * g))
            self.glyphs += 1
        if counts[1]:  # a deleted branch: a red cross below-right
            painter.setPen(QPen(pal.deleted, 2.0))
            x, y = c.x() + 2 * g, c.y() + 2 * g
            painter.drawLine(QPointF(x - g, y - g), QPointF(x + g, y + g))
            painter.drawLine(QPointF(x - g, y + g), QPointF(x + g, y - g))
            self.glyphs += 1
        if stale:  # a stale answer: an amber triangle above
            painter.setPen(QPen(pal.background, 1.0))
            painter.setBrush(pal.stale)
            painter.drawPolygon(QPolygonF([QPointF(c.x(), c.y() - 4 * g),
                                           QPointF(c.x() - g * 1.3, c.y() - 1.6 * g),
                                           QPointF(c.x() + g * 1.3, c.y() - 1.6 * g)]))
            self.glyphs += 1


def _arrow(painter: QPainter, tip: QPointF, color: QColor) -> None:
    """A small arrowhead pointing left into the merge message, in screen pixels."""
    painter.save()
    painter.resetTransform()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawPolygon(QPolygonF([tip, QPointF(tip.x() + 9, tip.y() - 5),
                                   QPointF(tip.x() + 9, tip.y() + 5)]))
    painter.restore()


def _near(view: View, x: float, y: float) -> bool:
    left, top, right, bottom = view
    return left - BOX_W <= x <= right + BOX_W and top - BOX_H <= y <= bottom + BOX_H


def _crosses(view: View, left: float, top: float, right: float, bottom: float) -> bool:
    v_left, v_top, v_right, v_bottom = view
    return left <= v_right and right >= v_left and top <= v_bottom and bottom >= v_top
