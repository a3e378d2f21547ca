"""The card every transcript row is drawn as: a rounded panel with a stripe saying who spoke.

Colours come from the palette (so light and dark themes both work) except the
role accents, which carry meaning: the stripe on a card's left edge says who
spoke before the reader has read a word.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QPoint, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import QFrame, QVBoxLayout, QWidget

from explorer.ui.compare_marks import paint_mark_badge
from explorer.ui.live_marks import paint_live_badge
from explorer.ui.transcript.markdown import DocumentView
from explorer.ui.transcript.rows import PathInfo
from explorer.ui.transcript.text_view import TextView

ROLE_ACCENTS = {"user": "#3b82f6", "assistant": "#10a37f", "system": "#8b8f98", "tool": "#e0912b"}
META_ACCENT = "#b0b4bb"
"""The stripe of a tool's own record (a note, command output, compaction marker): faint."""


CARD_MARGINS = (14, 8, 10, 8)
"""Left, top, right, bottom: inside the border, right of the stripe."""
CARD_SPACING = 4


@dataclass
class CardContext:
    """Path-wide facts a card looks up; ``siblings`` is asked only when a card is built."""

    info: PathInfo = field(default_factory=PathInfo)
    siblings: Callable[[int], list[int]] = lambda mid: [mid]
    # one line per sibling saying what sets it apart (read only when a tooltip asks)
    describe: Callable[[list[int], int], list[str]] = lambda ids, mid: []


class Card(QFrame):
    """A selectable rounded panel with an accent stripe; the base of both card kinds."""

    pressed = Signal(int)
    menuRequested = Signal(int, QPoint)
    resized = Signal()

    def __init__(self, mid: int, accent: str, dashed: bool, parent: QWidget | None,
                 body: bool = True) -> None:
        super().__init__(parent)
        self.mid = mid
        self.accent = QColor(accent)
        self.dashed = dashed
        self.selected = False
        self.compare_mark: int | None = None  # place among the messages marked for compare
        self.live = 0.0  # how strongly it is marked as just arrived (0: not at all)
        if body:  # a card that paints its content itself has no layout to fill
            self.body = QVBoxLayout(self)
            self.body.setContentsMargins(*CARD_MARGINS)
            self.body.setSpacing(CARD_SPACING)

    def set_selected(self, selected: bool) -> None:
        if selected != self.selected:
            self.selected = selected
            self.update()

    def set_compare_mark(self, number: int | None) -> None:
        if number != self.compare_mark:
            self.compare_mark = number
            self.update()

    def tooltip_at(self, pos: QPoint) -> str:
        """What hovering ``pos`` says; the view shows it (a card handles no events for it,
        so the many events a scroll step sends the cards cost no Python)."""
        return f"marked for compare ({self.compare_mark})" if self.compare_mark else ""

    def tooltip_rect(self, pos: QPoint) -> QRect:
        """Where the tooltip shown for ``pos`` holds."""
        return self.rect()

    def fill(self) -> QColor:
        """The colour inside the border."""
        role = QPalette.ColorRole.Window if self.dashed else QPalette.ColorRole.Base
        return self.palette().color(role)

    def set_live(self, strength: float) -> None:
        if strength != self.live:
            self.live = strength
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(1.5, 1.5, -1.5, -1.5)
        pal = self.palette()
        role = QPalette.ColorRole.Highlight if self.selected else QPalette.ColorRole.Mid
        line = 2.0 if self.selected else 1.0
        fill = self.fill()
        if self.dashed:
            pen = QPen(pal.color(role), line, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 6, 6)
        else:  # the solid border as two fills: stroking a rounded outline costs 3× as much
            half = line / 2
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(pal.color(role))
            painter.drawRoundedRect(rect.adjusted(-half, -half, half, half), 6 + half, 6 + half)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect.adjusted(half, half, -half, -half), 6 - half, 6 - half)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.accent)
        painter.drawRoundedRect(QRectF(rect.left(), rect.top(), 4, rect.height()), 2, 2)
        self.paint_content(painter, event.rect())
        if self.compare_mark is not None:
            paint_mark_badge(painter, rect, self.compare_mark)
        if self.live > 0:
            paint_live_badge(painter, rect, self.live)

    def paint_content(self, painter: QPainter, clip: QRect) -> None:
        """What a card paints itself inside its frame (a header, a slim card's lines)."""

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.pressed.emit(self.mid)
        super().mousePressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        self.menuRequested.emit(self.mid, event.globalPos())
        event.accept()

    def _forward_presses(self, view: DocumentView | TextView) -> None:
        view.pressed.connect(lambda: self.pressed.emit(self.mid))


