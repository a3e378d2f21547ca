"""The conversation list: a filter field, the sort and grouping choices, the list itself.

Choices made by the person (click, keyboard) are announced with
``conversationChosen``; ``select`` from code is quiet unless asked, so a window
that selects a conversation it is already showing never loads it twice. Typing
a filter, sorting, grouping or shutting a group never changes the chosen
conversation: they only hide or move rows. The window refreshes the list off the main
thread (:meth:`ConversationList.refresh`); the chosen conversation and the rows in
view stay where they were.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPoint,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QVBoxLayout,
    QWidget,
)

from explorer.store import Store
from explorer.ui.background.tasks import LatestRunner, Ticket
from explorer.ui.window.conversation_delegate import ConversationDelegate
from explorer.ui.window.conversation_filter import SORTS, ConversationFilter
from explorer.ui.window.conversation_groups import GROUPINGS, GroupRow
from explorer.ui.window.conversation_model import (
    COUNT_ROLE,
    FOLDER_ROLE,
    FORKED_FROM_ROLE,
    FORMAT_ROLE,
    HEADER_ROLE,
    ID_ROLE,
    SUBTITLE_ROLE,
    TITLE_KEY_ROLE,
    UPDATED_ROLE,
    ConversationModel,
    ListRows,
    date_text,
    prepare,
)

__all__ = [
    "COUNT_ROLE", "FOLDER_ROLE", "FORKED_FROM_ROLE", "FORMAT_ROLE", "GROUPINGS", "HEADER_ROLE",
    "ID_ROLE", "SORTS", "SUBTITLE_ROLE", "TITLE_KEY_ROLE", "UPDATED_ROLE", "ConversationDelegate",
    "ConversationFilter", "ConversationList", "ConversationModel", "date_text",
]
_TOGGLE_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Left,
                Qt.Key.Key_Right)


class ConversationList(QWidget):
    """A filter field, sort and grouping choices and the list; announces the person's choice."""

    conversationChosen = Signal(int)
    groupingChanged = Signal(str)

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ConversationModel(store, self)
        self.proxy = ConversationFilter(self)
        self.proxy.setSourceModel(self.model)
        self.search = QLineEdit(self)
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Shows the conversations whose title, project folder or "
                               "source holds the text")
        self.sort_combo = QComboBox(self)
        for key, (label, _role, _order) in SORTS.items():
            self.sort_combo.addItem(label, key)
        self.sort_combo.setToolTip("Order of the conversations")
        self.group_combo = QComboBox(self)
        for key, label in GROUPINGS.items():
            self.group_combo.addItem(label, key)
        self.group_combo.setToolTip("Group the conversations by project folder or by source")
        self.view = QListView(self)
        self.view.setModel(self.proxy)
        self.view.setItemDelegate(ConversationDelegate(self.view))
        self.view.setUniformItemSizes(True)  # 25,000 rows laid out without a size each
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
        self._runner: LatestRunner | None = None  # the refreshes' reads, made on the first
        self._again = False  # a refresh asked for while one reads
        self._wanted: int | None = None  # chosen before the refresh that brings it came
        self._scroll_when_shown = False
        self._layout()
        self.search.textChanged.connect(self._filter)
        self.search.installEventFilter(self)
        self.view.installEventFilter(self)
        self.view.viewport().installEventFilter(self)
        self.sort_combo.currentIndexChanged.connect(self._sort_changed)
        self.group_combo.currentIndexChanged.connect(self._grouping_changed)
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.reload()

    def _layout(self) -> None:
        choices = QHBoxLayout()
        choices.setContentsMargins(0, 0, 0, 0)
        choices.addWidget(self.sort_combo, 1)
        choices.addWidget(self.group_combo, 1)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        box.addWidget(self.search)
        box.addLayout(choices)
        box.addWidget(self.view, 1)

    # -- public -----------------------------------------------------------------
    def reload(self) -> None:
        """Read the conversations again now, keeping the chosen one selected if it still
        exists and the rows in view where they were."""
        self._apply(lambda: self.model.reload())

    def refresh(self) -> None:
        """Read the conversations again off the main thread (after a sync, an import, an
        operation) and show them when read; requests while one reads make one more read."""
        if self._runner is None:
            self._runner = LatestRunner(self, threads=1, name="explorer-list")
            self._runner.finished.connect(self._refreshed)
        if self._runner.busy:
            self._again = True
            return
        store, memo = self.model.store, self.model.memo
        self._runner.submit(lambda _t: _read(store, memo, _t))

    @property
    def refreshing(self) -> bool:
        """Whether a read is under way (a failed one is told on the error bar, by the
        runner, and ends it)."""
        return self._runner is not None and self._runner.busy

    def shutdown(self) -> None:
        """Stop a refresh that reads (the window closes before the store)."""
        if self._runner is not None:
            self._runner.shutdown()

    def select(self, conv_id: int, *, announce: bool = False) -> bool:
        """Make ``conv_id`` the chosen conversation (clearing a filter that hides it and
        opening its group if shut)."""
        row = self.model.row_of(conv_id)
        if row is None:
            if self.refreshing:  # a new conversation the refresh that reads will bring
                self._wanted = conv_id
            return False
        self._wanted = None
        if not self.proxy.passes(row):
            self.search.clear()
        group = self.proxy.group_of(row)
        if group is not None:
            self._quietly(lambda: self.proxy.set_collapsed(group, False))
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

    def set_grouping(self, key: str) -> None:
        """Group by ``"project"`` folder, by ``"source"``, or not (``"none"``)."""
        self.group_combo.setCurrentIndex(list(GROUPINGS).index(key))

    def grouping(self) -> str:
        return self.proxy.grouping

    def set_group_shut(self, key: str, shut: bool) -> None:
        """Shut (hide the rows of) or open the current grouping's group ``key``."""
        self._keeping_view(lambda: self.proxy.set_collapsed(key, shut), scroll=False)

    def focus_filter(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def conversation_index(self, conv_id: int) -> QModelIndex | None:
        """``conv_id``'s row in the list as shown; None while it is hidden."""
        row = self.model.row_of(conv_id)
        at = self.proxy.position(row) if row is not None else None
        return self.proxy.index(at, 0) if at is not None else None

    # -- internals --------------------------------------------------------------
    def _quietly(self, action: Callable[[], object]) -> None:
        self._quiet = True
        try:
            action()
        finally:
            self._quiet = False

    def _apply(self, change: Callable[[], object]) -> None:
        """New rows: the chosen conversation kept (if it still exists), the view held."""
        self._keeping_view(change, scroll=False)
        if self._chosen is not None and self.model.row_of(self._chosen) is None:
            self._chosen = None
        count = self.model.rowCount()
        self.search.setPlaceholderText(
            f"Filter {count:,} conversation{'' if count == 1 else 's'}")
        self._show_empty()

    def _refreshed(self, rows: object) -> None:
        if isinstance(rows, ListRows):
            self._apply(lambda: self.model.apply(rows))
        if self._again:
            self._again = False
            self.refresh()
        elif self._wanted is not None and self.model.row_of(self._wanted) is not None:
            self.select(self._wanted)

    def _keeping_view(self, change: Callable[[], object], *, scroll: bool) -> None:
        """Run ``change`` (which resets the list) and put the row that was at the top of
        the view back there; the chosen conversation selected again."""
        top = self._row_key(self.view.indexAt(QPoint(4, 4)))
        self._quietly(change)
        index = self._index_of_key(top) if top is not None else None
        if index is not None:
            self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
        self._show_chosen(scroll=scroll)

    def _row_key(self, index: QModelIndex) -> tuple[str, object] | None:
        if not index.isValid():
            return None
        group = index.data(HEADER_ROLE)
        if isinstance(group, GroupRow):
            return ("group", group.key)
        return ("conversation", index.data(ID_ROLE))

    def _index_of_key(self, key: tuple[str, object]) -> QModelIndex | None:
        kind, value = key
        if kind == "conversation":
            return self.conversation_index(int(str(value)))
        for row, group in enumerate(self.proxy.shown.groups):
            if group.key == value:
                return self.proxy.index(self.proxy.shown.rows.index(-row - 1), 0)
        return None

    def _show_chosen(self, *, scroll: bool = True) -> None:
        """Select the chosen row without announcing it, or nothing when it is hidden."""
        index = self.conversation_index(self._chosen) if self._chosen is not None else None
        selection = self.view.selectionModel()
        if index is None:
            self._quietly(lambda: selection.setCurrentIndex(
                QModelIndex(), QItemSelectionModel.SelectionFlag.Clear))
            return
        self._quietly(lambda: selection.setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect))
        if scroll:
            self._scroll_to(index)

    def _scroll_to(self, index: QModelIndex) -> None:
        """``index`` into view (and its header, when it is the first of its group). Before
        the list is on screen its size is not its own yet: done again once it is."""
        self._scroll_when_shown = not self.view.viewport().isVisible()
        above = self.proxy.index(index.row() - 1, 0)
        if above.isValid() and self.proxy.group_at(above.row()) is not None:
            self.view.scrollTo(above)
        self.view.scrollTo(index)

    def _filter(self, text: str) -> None:
        self._quietly(lambda: self.proxy.set_text(text))
        self._show_chosen()
        if self._chosen is None or self.conversation_index(self._chosen) is None:
            self.view.scrollToTop()  # the matches from the first, not from where it was
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

    def _grouping_changed(self, combo_index: int) -> None:
        key = str(self.group_combo.itemData(combo_index))
        self._quietly(lambda: self.proxy.set_grouping(key))
        self._show_chosen()
        self.groupingChanged.emit(key)

    def _current_changed(self, index: QModelIndex, _previous: QModelIndex) -> None:
        if self._quiet or not index.isValid():
            return
        conv_id = index.data(ID_ROLE)
        if conv_id is not None and int(conv_id) != self._chosen:
            self._chosen = int(conv_id)
            self.conversationChosen.emit(self._chosen)

    def _toggle(self, index: QModelIndex) -> bool:
        """Open or shut the group whose header is at ``index``; whether it was a header."""
        group = self.proxy.group_at(index.row()) if index.isValid() else None
        if group is None:
            return False
        key = group.key
        self.set_group_shut(key, not group.collapsed)
        header = self._index_of_key(("group", key))
        if header is not None:
            self._quietly(lambda: self.view.selectionModel().setCurrentIndex(
                header, QItemSelectionModel.SelectionFlag.NoUpdate))
        return True

    def _first_conversation(self) -> QModelIndex | None:
        for row in range(self.proxy.rowCount()):
            if self.proxy.group_at(row) is None:
                return self.proxy.index(row, 0)
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Down in the filter field moves into the list, so the keyboard never has to leave;
        a click on a group's header, or Space, Enter or an arrow on it, opens or shuts it."""
        kind = event.type()
        if (watched is self.search and kind == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Down):
            self.view.setFocus()
            first = self._first_conversation()
            if not self.view.currentIndex().isValid() and first is not None:
                self.view.setCurrentIndex(first)
            return True
        if watched is self.view.viewport() and kind in (QEvent.Type.Resize, QEvent.Type.Show) \
                and self._scroll_when_shown and self.view.viewport().isVisible():
            index = self.conversation_index(self._chosen) if self._chosen is not None else None
            if index is not None:
                self._scroll_to(index)
            else:
                self.view.scrollToTop()
            self._scroll_when_shown = False
        if watched is self.view.viewport() and isinstance(event, QMouseEvent) and kind in (
                QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick):
            index = self.view.indexAt(event.position().toPoint())
            if self.proxy.group_at(index.row()) is not None and index.isValid():
                if kind == QEvent.Type.MouseButtonPress \
                        and event.button() == Qt.MouseButton.LeftButton:
                    self._toggle(index)
                return True
        if (watched is self.view and kind == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent) and event.key() in _TOGGLE_KEYS):
            current = self.view.currentIndex()
            group = self.proxy.group_at(current.row()) if current.isValid() else None
            if group is not None:
                opening = event.key() == Qt.Key.Key_Right
                closing = event.key() == Qt.Key.Key_Left
                if (opening and not group.collapsed) or (closing and group.collapsed):
                    return True
                return self._toggle(current)
        return super().eventFilter(watched, event)


def _read(store: Store, memo: dict[str, str], ticket: Ticket) -> ListRows:
    """The list's rows, read and prepared on a worker thread."""
    columns = store.conversation_columns()
    ticket.check()
    return prepare(columns, memo)
