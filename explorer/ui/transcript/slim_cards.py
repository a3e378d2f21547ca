"""Slim cards: markers (compactions, rewinds, trims, elided output) and the stand-in a
message shows while its content is read."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QLabel, QWidget

from explorer.store.reads_path import PathEntry
from explorer.ui.transcript.cards import CARD_MARGINS, CARD_SPACING, ROLE_ACCENTS, Card
from explorer.ui.transcript.parts import ERROR_ACCENT, MarkerLabel
from explorer.ui.transcript.rows import Marker, entry_role

MARKER_ACCENTS = {
    "compaction": "#9b59b6", "rewind": "#e67e22", "explored": "#e67e22",
    "context_start": "#7f8c8d", "incomplete": ERROR_ACCENT, "elided": "#7f8c8d",
}


class MarkerCard(Card):
    """A slim dashed card: compactions, rewinds, trims, elided output."""

    def __init__(self, marker: Marker, mid: int, parent: QWidget | None = None) -> None:
        super().__init__(mid, MARKER_ACCENTS.get(marker.kind, "#888888"), True, parent)
        self.marker = marker
        self.body.setContentsMargins(14, 4, 10, 4)
        self.body.setSpacing(0)
        self.title = QLabel(marker.title, self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 0.9)
        self.title.setFont(font)
        self.body.addWidget(self.title)
        self.detail = MarkerLabel(marker.detail, self)
        self.detail.setVisible(bool(marker.detail))
        self.body.addWidget(self.detail)


class PendingCard(Card):
    """A message whose content is still being read: who spoke and the first words.

    It has the card's shape, stripe and click behaviour, so the transcript can be
    painted, scrolled and selected before any text has arrived (V2). A jump puts a
    screenful of them up at once, so they paint their two lines themselves instead
    of holding two labels in a layout each.
    """

    def __init__(self, entry: PathEntry, parent: QWidget | None = None) -> None:
        role = entry_role(entry)
        super().__init__(entry.id, ROLE_ACCENTS.get(role, "#888888"), False, parent, body=False)
        self.entry = entry
        self.role_text = role.capitalize()
        self.preview_text = entry.preview or "…"
        self.role_font = QFont(self.font())
        self.role_font.setBold(True)
        self.role_font.setPointSizeF(self.role_font.pointSizeF() * 0.9)

    def _preview_rect(self, width: int) -> QRect:
        left, top, right, _ = CARD_MARGINS
        top += QFontMetrics(self.role_font).height() + CARD_SPACING
        inner = max(1, width - left - right)
        box = self.fontMetrics().boundingRect(QRect(0, 0, inner, 1 << 20), _WRAP,
                                              self.preview_text)
        return QRect(left, top, inner, box.height())

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._preview_rect(width).bottom() + 1 + CARD_MARGINS[3]

    def sizeHint(self) -> QSize:
        width = max(self.width(), 200)
        return QSize(width, self.heightForWidth(width))

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        painter = QPainter(self)
        left, top = CARD_MARGINS[:2]
        painter.setFont(self.role_font)
        painter.setPen(self.accent)
        role_height = QFontMetrics(self.role_font).height()
        painter.drawText(QRect(left, top, self.width(), role_height), _ROLE_ALIGN,
                         self.role_text)
        painter.setFont(self.font())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        painter.drawText(self._preview_rect(self.width()), _WRAP, self.preview_text)


_WRAP = int(Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft)
_ROLE_ALIGN = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
