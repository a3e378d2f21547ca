"""The conversation list: a model of the store's conversations, a filter/sort proxy, the widget.

Choices made by the person (click, keyboard) are announced with
``conversationChosen``; ``select`` from code is quiet unless asked, so a window
that selects a conversation it is already showing never loads it twice. Typing
a filter never changes the chosen conversation: it only hides rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QKeyEvent, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from explorer.store import Store
from explorer.store.reads import Conversation
from explorer.ui.plain_text import tooltip
from explorer.ui.window.format_badges import ICON_SIZE, format_icon, format_name

Index = QModelIndex | QPersistentModelIndex
_USER = int(Qt.ItemDataRole.UserRole)
ID_ROLE = _USER + 1
COUNT_ROLE = _USER + 2
UPDATED_ROLE = _USER + 3
FORMAT_ROLE = _USER + 4
FORKED_FROM_ROLE = _USER + 5
TITLE_KEY_ROLE = _USER + 6
SUBTITLE_ROLE = _USER + 7

# key -> (label, role sorted on, order)
SORTS: dict[str, tuple[str, int, Qt.SortOrder]] = {
    "date": ("Newest first", UPDATED_ROLE, Qt.SortOrder.DescendingOrder),
    "title": ("Title", TITLE_KEY_ROLE, Qt.SortOrder.AscendingOrder),
    "size": ("Largest first", COUNT_ROLE, Qt.SortOrder.DescendingOrder),
}


def date_text(ts: float | None, now: datetime | None = None) -> str:
    """A short local date: the time for today, the day otherwise."""
    if ts is None:
        return ""
    when = datetime.fromtimestamp(ts)
    today = (now or datetime.now()).date()
    return when.strftime("%H:%M") if when.date() == today else when.strftime("%Y-%m-%d")


class ConversationModel(QAbstractListModel):
    """One row per conversation, in the store's order (newest first)."""

    def __init__(self, store: Store, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._rows: list[Conversation] = []
        self._titles: dict[int, str] = {}
        self.shown: list[str] = []  # each row's title as shown (masked once, not per paint)
        self.keys: list[str] = []  # the same, case-folded: what the filter looks in

    def reload(self) -> None:
        self.beginResetModel()
        self._rows = self.store.conversations()
        self.shown = [c.display_title for c in self._rows]
        self.keys = [t.casefold() for t in self.shown]
        self._titles = {c.id: t for c, t in zip(self._rows, self.shown, strict=True)}
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def conversation(self, row: int) -> Conversation:
        return self._rows[row]

    def row_of(self, conv_id: int) -> int | None:
        for row, conv in enumerate(self._rows):
            if conv.id == conv_id:
                return row
        return None

    def forked_from(self, conv: Conversation) -> str:
        origin = conv.forked_from_conversation_id
        if origin is None:
            return ""
        return self._titles.get(origin, f"conversation {origin}")

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        conv = self._rows[index.row()]
        role = int(role)
        if role == Qt.ItemDataRole.DisplayRole:
            return self.shown[index.row()]
        if role == Qt.ItemDataRole.DecorationRole:
            return format_icon(conv.source_format)
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip(self._tooltip(conv))
        return self._value(conv, role)

    def _value(self, conv: Conversation, role: int) -> Any:
        if role == ID_ROLE:
            return conv.id
        if role == COUNT_ROLE:
            return conv.message_count
        if role == UPDATED_ROLE:
            return float(conv.updated_at or conv.created_at or 0.0)
        if role == FORMAT_ROLE:
            return conv.source_format or ""
        if role == FORKED_FROM_ROLE:
            return self.forked_from(conv)
        if role == TITLE_KEY_ROLE:
            return self._titles[conv.id].casefold()
        if role == SUBTITLE_ROLE:
            return self._subtitle(conv)
        return None

    def _subtitle(self, conv: Conversation) -> str:
        bits = [f"{conv.message_count} message{'' if conv.message_count == 1 else 's'}"]
        when = date_text(conv.updated_at or conv.created_at)
        if when:
            bits.append(when)
        bits.append(format_name(conv.source_format))
        origin = self.forked_from(conv)
        if origin:
            bits.append(f"fork of {origin}")
        return " · ".join(bits)

    def _tooltip(self, conv: Conversation) -> str:
        lines = [conv.display_title, self._subtitle(conv)]
        if conv.source_path:
            lines.append(conv.source_path)
        return "\n".join(lines)


class ConversationFilter(QSortFilterProxyModel):
    """Search-as-you-type on the title, and the three sort orders (ties by id).

    The rows a text keeps are found in one pass over the model's case-folded titles; the
    proxy then asks a set, not each row's data (25,000 conversations filter in a few
    milliseconds a keystroke)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.sort_key = "date"
        self.kept: set[int] | None = None  # source rows the text keeps (None: every row)
        self.text = ""

    def set_text(self, text: str) -> None:
        needle = text.strip().casefold()
        model = self.sourceModel()
        keys = model.keys if isinstance(model, ConversationModel) else []
        changing = hasattr(self, "beginFilterChange")  # Qt 6.9+; invalidateFilter before
        if changing:
            self.beginFilterChange()
        self.text = needle
        self.kept = None if not needle else {i for i, k in enumerate(keys) if needle in k}
        if changing:
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        return self.kept is None or source_row in self.kept

    def set_sort_key(self, key: str) -> None:
        _label, role, order = SORTS[key]
        self.sort_key = key
        self.setSortRole(role)
        self.sort(0, order)

    def lessThan(self, left: Index, right: Index) -> bool:
        a, b = left.data(self.sortRole()), right.data(self.sortRole())
        if a != b:
            return bool(a < b)
        # Ties show the newer conversation first whichever direction is sorted.
        ida, idb = int(left.data(ID_ROLE)), int(right.data(ID_ROLE))
        return ida < idb if self.sortOrder() == Qt.SortOrder.DescendingOrder else ida > idb


class ConversationDelegate(QStyledItemDelegate):
    """Two lines per row: the title, and counts, date, format and origin in a muted tone."""

    PAD = 6

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> Any:
        size = super().sizeHint(option, index)
        line = option.fontMetrics.height()
        size.setHeight(max(ICON_SIZE, 2 * line + 2) + 2 * self.PAD)
        size.setWidth(ICON_SIZE + 4 * self.PAD)  # rows take the list's width; titles elide
        return size

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
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
        icon_rect = rect.adjusted(self.PAD, 0, 0, 0)
        icon_rect.setWidth(ICON_SIZE)
        icon_rect.setTop(rect.center().y() - ICON_SIZE // 2)
        icon_rect.setHeight(ICON_SIZE)
        format_icon(index.data(FORMAT_ROLE)).paint(painter, icon_rect)
        text_rect = rect.adjusted(ICON_SIZE + 2 * self.PAD, self.PAD, -self.PAD, -self.PAD)
        painter.save()
        title_font = QFont(opt.font)
        title_font.setBold(True)
        self._line(painter, title_font, text, text_rect, str(index.data()), top=True)
        small = QFont(opt.font)
        if small.pointSizeF() > 0:
            small.setPointSizeF(max(6.0, small.pointSizeF() * 0.9))
        elif small.pixelSize() > 0:
            small.setPixelSize(max(8, round(small.pixelSize() * 0.9)))
        self._line(painter, small, muted, text_rect, str(index.data(SUBTITLE_ROLE)), top=False)
        painter.restore()

    @staticmethod
    def _line(painter: QPainter, font: QFont, colour: QColor, rect: Any, text: str,
              *, top: bool) -> None:
        painter.setFont(font)
        painter.setPen(colour)
        elided = painter.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
        align = Qt.AlignmentFlag.AlignTop if top else Qt.AlignmentFlag.AlignBottom
        painter.drawText(rect, align | Qt.AlignmentFlag.AlignLeft, elided)


class ConversationList(QWidget):
    """A filter field, a sort choice and the list; announces the person's choice."""

    conversationChosen = Signal(int)

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ConversationModel(store, self)
        self.proxy = ConversationFilter(self)
        self.proxy.setSourceModel(self.model)
        # new rows (an import, a sync): the kept rows are found again for the same text
        self.model.modelReset.connect(lambda: self.proxy.set_text(self.proxy.text))
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Filter conversations")
        self.search.setClearButtonEnabled(True)
        self.sort_combo = QComboBox(self)
        for key, (label, _role, _order) in SORTS.items():
            self.sort_combo.addItem(label, key)
        self.view = QListView(self)
        self.view.setModel(self.proxy)
        self.view.setItemDelegate(ConversationDelegate(self.view))
        self.view.setUniformItemSizes(True)
        self.view.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.setResizeMode(QListView.ResizeMode.Adjust)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.empty_label = QLabel("No matches", self.view.viewport())
        self.empty_label.setObjectName("noMatches")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setEnabled(False)  # the muted text colour of the theme
        self.empty_label.hide()
        self._chosen: int | None = None
        self._quiet = False
        self._layout()
        self.search.textChanged.connect(self._filter)
        self.search.installEventFilter(self)
        self.sort_combo.currentIndexChanged.connect(self._sort_changed)
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.proxy.set_sort_key("date")
        self.reload()

    def _layout(self) -> None:
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search, 1)
        top.addWidget(self.sort_combo)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        box.addLayout(top)
        box.addWidget(self.view, 1)

    # -- public -----------------------------------------------------------------
    def reload(self) -> None:
        """Read the conversations again, keeping the chosen one selected if it still exists."""
        self._quietly(self.model.reload)
        if self._chosen is not None and self.model.row_of(self._chosen) is None:
            self._chosen = None
        self._show_chosen()

    def select(self, conv_id: int, *, announce: bool = False) -> bool:
        """Make ``conv_id`` the chosen conversation (clearing a filter that hides it)."""
        if self.model.row_of(conv_id) is None:
            return False
        if self._proxy_index(conv_id) is None:
            self.search.clear()
        changed = conv_id != self._chosen
        self._chosen = conv_id
        self._show_chosen()
        if announce and changed:
            self.conversationChosen.emit(conv_id)
        return True

    def current(self) -> int | None:
        """The chosen conversation (the one last announced or selected), if any."""
        return self._chosen

    def set_sort(self, key: str) -> None:
        self.sort_combo.setCurrentIndex(list(SORTS).index(key))

    def focus_filter(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    # -- internals --------------------------------------------------------------
    def _quietly(self, action: Any) -> None:
        self._quiet = True
        try:
            action()
        finally:
            self._quiet = False

    def _proxy_index(self, conv_id: int) -> QModelIndex | None:
        row = self.model.row_of(conv_id)
        if row is None:
            return None
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        return index if index.isValid() else None

    def _show_chosen(self) -> None:
        """Select the chosen row without announcing it, or nothing when it is hidden."""
        index = self._proxy_index(self._chosen) if self._chosen is not None else None
        selection = self.view.selectionModel()
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
        if index is None:
            self._quietly(lambda: selection.setCurrentIndex(
                QModelIndex(), QItemSelectionModel.SelectionFlag.Clear))
            return
        self._quietly(lambda: selection.setCurrentIndex(index, flags))
        self.view.scrollTo(index)

    def _filter(self, text: str) -> None:
        self._quietly(lambda: self.proxy.set_text(text))
        self._show_chosen()
        self._show_empty()

    def _show_empty(self) -> None:
        """"No matches" in the list when a filter hides every conversation."""
        empty = self.proxy.rowCount() == 0 and bool(self.search.text())
        if empty:
            self.empty_label.setText(f"No matches for “{self.search.text()}”")
            self.empty_label.setGeometry(self.view.viewport().rect().adjusted(8, 8, -8, -8))
            self.empty_label.setWordWrap(True)
        self.empty_label.setVisible(empty)

    def _sort_changed(self, combo_index: int) -> None:
        key = str(self.sort_combo.itemData(combo_index))
        self._quietly(lambda: self.proxy.set_sort_key(key))
        self._show_chosen()

    def _current_changed(self, index: QModelIndex, _previous: QModelIndex) -> None:
        if self._quiet or not index.isValid():
            return
        conv_id = int(index.data(ID_ROLE))
        if conv_id != self._chosen:
            self._chosen = conv_id
            self.conversationChosen.emit(conv_id)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Down in the filter field moves into the list, so the keyboard never has to leave."""
        if (watched is self.search and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Down):
            self.view.setFocus()
            if not self.view.currentIndex().isValid() and self.proxy.rowCount():
                self.view.setCurrentIndex(self.proxy.index(0, 0))
            return True
        return super().eventFilter(watched, event)
