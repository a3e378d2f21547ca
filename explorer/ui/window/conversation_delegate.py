"""How a row of the conversation list is painted: a conversation, or a group's header.

Every row has the same height (the view lays 25,000 rows out without asking each for its
size): a conversation shows its title and a muted line of counts, date, project, source
and origin; a header shows an open/shut arrow, the group's name and count, and under it
the folder's path.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPolygonF
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from explorer.ui.window.conversation_groups import GroupRow
from explorer.ui.window.conversation_model import FORMAT_ROLE, HEADER_ROLE, SUBTITLE_ROLE
from explorer.ui.window.format_badges import ICON_SIZE, format_icon

Index = QModelIndex | QPersistentModelIndex
ARROW = 10  # the open/shut arrow's side


def small_font(font: QFont) -> QFont:
    small = QFont(font)
    if small.pointSizeF() > 0:
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.9))
    elif small.pixelSize() > 0:
        small.setPixelSize(max(8, round(small.pixelSize() * 0.9)))
    return small


def count_text(group: GroupRow) -> str:
    """"12" unfiltered; "3 of 12" while a filter keeps only some of a group."""
    return f"{group.count:,}" if group.count == group.total else \
        f"{group.count:,} of {group.total:,}"


class ConversationDelegate(QStyledItemDelegate):
    """Two lines per row: the title, and counts, date, project, format and origin in a muted
    tone; a group's header in the same height."""

    PAD = 6

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> Any:
        size = super().sizeHint(option, index)
        line = option.fontMetrics.height()
        size.setHeight(max(ICON_SIZE, 2 * line + 2) + 2 * self.PAD)
        size.setWidth(ICON_SIZE + 4 * self.PAD)  # rows take the list's width; titles elide
        return size

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        group = index.data(HEADER_ROLE)
        if isinstance(group, GroupRow):
            self._paint_header(painter, option, group)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else None
        rect = opt.rect
        if style is not None:
            style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        pal = opt.palette
        text = pal.highlightedText().color() if selected else pal.text().color()
        muted = QColor(text)
        muted.setAlphaF(0.65)
        icon_rect = QRect(rect.left() + self.PAD, rect.center().y() - ICON_SIZE // 2,
                          ICON_SIZE, ICON_SIZE)
        format_icon(index.data(FORMAT_ROLE)).paint(painter, icon_rect)
        text_rect = rect.adjusted(ICON_SIZE + 2 * self.PAD, self.PAD, -self.PAD, -self.PAD)
        painter.save()
        title_font = QFont(opt.font)
        title_font.setBold(True)
        self._line(painter, title_font, text, text_rect, str(index.data()), top=True)
        self._line(painter, small_font(opt.font), muted, text_rect,
                   str(index.data(SUBTITLE_ROLE)), top=False)
        painter.restore()

    def _paint_header(self, painter: QPainter, option: QStyleOptionViewItem,
                      group: GroupRow) -> None:
        rect, pal = option.rect, option.palette
        painter.save()
        band = QColor(pal.color(QPalette.ColorRole.Text))
        band.setAlphaF(0.07)
        painter.fillRect(rect.adjusted(0, 1, 0, -1), band)
        if option.state & QStyle.StateFlag.State_HasFocus:
            edge = QColor(pal.color(QPalette.ColorRole.Highlight))
            painter.setPen(edge)
            painter.drawRect(rect.adjusted(0, 1, -1, -2))
        text = pal.color(QPalette.ColorRole.Text)
        muted = QColor(text)
        muted.setAlphaF(0.65)
        self._arrow(painter, rect, text, group.collapsed)
        left = rect.left() + self.PAD + ARROW + self.PAD
        if group.source:
            icon_rect = QRect(left, rect.center().y() - ICON_SIZE // 2, ICON_SIZE, ICON_SIZE)
            format_icon(group.source).paint(painter, icon_rect)
            left += ICON_SIZE + self.PAD
        text_rect = QRect(left, rect.top() + self.PAD, rect.right() - self.PAD - left,
                          rect.height() - 2 * self.PAD)
        small = small_font(option.font)
        count = count_text(group)
        painter.setFont(small)
        count_width = painter.fontMetrics().horizontalAdvance(count) + self.PAD
        bold = QFont(option.font)
        bold.setBold(True)
        if group.detail:
            name_rect = text_rect.adjusted(0, 0, -count_width, 0)
            self._line(painter, bold, text, name_rect, group.label, top=True)
            self._line(painter, small, muted, text_rect, group.detail, top=False)
            self._line(painter, small, muted, text_rect, count, top=True, right=True)
        else:  # one line, centred in the row
            centre = Qt.AlignmentFlag.AlignVCenter
            name_rect = text_rect.adjusted(0, 0, -count_width, 0)
            self._line(painter, bold, text, name_rect, group.label, align=centre)
            self._line(painter, small, muted, text_rect, count, align=centre, right=True)
        painter.restore()

    def _arrow(self, painter: QPainter, rect: QRect, colour: QColor, shut: bool) -> None:
        """A small filled triangle: pointing right when shut, down when open."""
        x, y = rect.left() + self.PAD, rect.center().y()
        half = ARROW / 2
        points = ([QPointF(x + 2, y - half), QPointF(x + 2, y + half),
                   QPointF(x + 2 + half + 1, y)] if shut else
                  [QPointF(x, y - half / 2 - 1), QPointF(x + ARROW, y - half / 2 - 1),
                   QPointF(x + half, y + half / 2 + 1)])
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.drawPolygon(QPolygonF(points))

    @staticmethod
    def _line(painter: QPainter, font: QFont, colour: QColor, rect: Any, text: str,
              *, top: bool = True, align: Qt.AlignmentFlag | None = None,
              right: bool = False) -> None:
        painter.setFont(font)
        painter.setPen(colour)
        elided = painter.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
        vertical = align if align is not None else (
            Qt.AlignmentFlag.AlignTop if top else Qt.AlignmentFlag.AlignBottom)
        side = Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft
        painter.drawText(rect, vertical | side, elided)
