"""Messages marked to be compared: one list the graph, the transcript and the menus share.

Marks stay until they are used by a compare that opens, or cleared; a compare
that is refused keeps them, so the person can fix the choice instead of
starting over.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter

MAX_MARKED = 4
MARK_COLOR = QColor("#ae3ec9")  # the graph's rings and the transcript's badges


class CompareMarks(QObject):
    changed = Signal(list)  # the marked ids, in the order they were marked

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ids: list[int] = []

    def ids(self) -> list[int]:
        return list(self._ids)

    def __contains__(self, mid: object) -> bool:
        return mid in self._ids

    def __len__(self) -> int:
        return len(self._ids)

    def number(self, mid: int) -> int | None:
        """1-based place of ``mid`` among the marks (what the badges show)."""
        return self._ids.index(mid) + 1 if mid in self._ids else None

    def toggle(self, mid: int) -> bool:
        """Mark or unmark ``mid``; False when it would be a fifth mark."""
        if mid in self._ids:
            self._ids.remove(mid)
        elif len(self._ids) >= MAX_MARKED:
            return False
        else:
            self._ids.append(mid)
        self.changed.emit(self.ids())
        return True

    def clear(self) -> None:
        if self._ids:
            self._ids.clear()
            self.changed.emit([])


def paint_mark_badge(painter: QPainter, rect: QRectF, number: int) -> None:
    """A "compare n" pill in a card's top right corner, and a dashed outline."""
    font = QFont()
    font.setPixelSize(11)
    font.setBold(True)
    painter.setFont(font)
    text = f"compare {number}"
    width = painter.fontMetrics().horizontalAdvance(text) + 14
    pill = QRectF(rect.right() - width - 8, rect.top() + 6, width, 18)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(MARK_COLOR)
    painter.drawRoundedRect(pill, 9, 9)
    painter.setPen(QColor("white"))
    painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
