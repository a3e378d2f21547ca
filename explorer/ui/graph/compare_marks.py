"""Messages marked for "compare marked", drawn on the tree: a dashed ring and their number.

The number is the order of marking (it is also the column order), so a person
can see at a glance which nodes a compare will put side by side. In the turn
view a mark sits on the turn that holds the marked message.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

from explorer.ui.compare_marks import MARK_COLOR
from explorer.ui.graph.model import BOX_H, BOX_W, GraphModel

DOT_RING_PX = 11.0


def mark_indices(model: GraphModel, mids: Sequence[int]) -> list[tuple[int, int]]:
    """(node index, 1-based number) of each marked message this tree shows."""
    return [(model.index[mid], n) for n, mid in enumerate(mids, 1) if mid in model.index]


def paint_compare_marks(painter: QPainter, model: GraphModel, marks: Sequence[tuple[int, int]],
                        scale: float, boxes: bool) -> None:
    if not marks:
        return
    pen = QPen(MARK_COLOR, 2.5)
    pen.setCosmetic(True)
    pen.setStyle(Qt.PenStyle.DashLine)
    font = QFont()
    font.setPixelSize(11)
    font.setBold(True)
    painter.setFont(font)
    for i, n in marks:
        x, y = model.xs[i], model.ys[i]
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if not boxes:
            r = DOT_RING_PX / max(scale, 1e-9)
            painter.drawEllipse(QPointF(x, y), r, r)
            continue
        painter.drawRect(QRectF(x - BOX_W / 2 - 8, y - BOX_H / 2 - 8, BOX_W + 16, BOX_H + 16))
        badge = QRectF(x - BOX_W / 2 - 16, y - BOX_H / 2 - 16, 18, 18)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(MARK_COLOR)
        painter.drawEllipse(badge)
        painter.setPen(QColor("white"))
        painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, str(n))
