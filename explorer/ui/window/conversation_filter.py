"""The list as shown: the model's rows filtered, sorted and grouped, with header rows.

A view over :class:`ConversationModel` that holds one list of row numbers
(:mod:`conversation_groups` computes it) instead of asking Python for every row's sort
key and filter answer: typing, sorting, grouping and a refresh each rebuild that list in
one pass and reset the rows.

Its rows themselves live in C++ (a ``QStringListModel`` of blank strings, one per row
shown): a list view lays every row out on a reset and asks the model for each row's
index twice while doing so, 60 ms of calls into Python at 25,000 rows, on every
keystroke. Here those calls stay in Qt; Python answers ``data`` and ``flags`` for the
rows on screen only.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QStringListModel,
    Qt,
)

from explorer.ui.window import conversation_groups as groups
from explorer.ui.window.conversation_groups import Arrangement, GroupRow
from explorer.ui.window.conversation_model import (
    COUNT_ROLE,
    HEADER_ROLE,
    SUBTITLE_ROLE,
    TITLE_KEY_ROLE,
    UPDATED_ROLE,
    ConversationModel,
)

Index = QModelIndex | QPersistentModelIndex

# key -> (label, role sorted on, order)
SORTS: dict[str, tuple[str, int, Qt.SortOrder]] = {
    "date": ("Newest first", UPDATED_ROLE, Qt.SortOrder.DescendingOrder),
    "title": ("Title", TITLE_KEY_ROLE, Qt.SortOrder.AscendingOrder),
    "size": ("Largest first", COUNT_ROLE, Qt.SortOrder.DescendingOrder),
}
_CONVERSATION_FLAGS = (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                       | Qt.ItemFlag.ItemNeverHasChildren)
_HEADER_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren


class ConversationFilter(QStringListModel):
    """Search-as-you-type on the title, project folder and source name; the three sort
    orders; grouping by project or source, each group's rows shown or shut."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.sort_key = "date"
        self.text = ""  # the case-folded filter text
        self.grouping = "none"
        self.collapsed: set[tuple[str, str]] = set()  # (grouping, key) of shut groups
        self.shown = Arrangement()
        self._source: ConversationModel | None = None
        self._order: list[int] | None = None  # the model's rows in sort order, kept
        self._totals: dict[str, int] | None = None  # each group's size, kept
        self._blank: list[str] = []  # one "" per row: what the C++ rows are made of

    # -- the source ---------------------------------------------------------------------
    def setSourceModel(self, model: ConversationModel) -> None:
        if self._source is not None:
            self._source.modelReset.disconnect(self._source_reset)
        self._source = model
        model.modelReset.connect(self._source_reset)
        self._source_reset()

    def sourceModel(self) -> ConversationModel | None:
        return self._source

    def _source_reset(self) -> None:
        """New rows (an import, a sync): sorted, filtered and grouped again as they were."""
        self._order = self._totals = None
        self._rebuild()

    # -- what the list asks for ------------------------------------------------------------
    def set_text(self, text: str) -> None:
        self._rebuild(text=text.strip().casefold())

    def set_sort_key(self, key: str) -> None:
        if key not in SORTS:
            raise KeyError(key)
        self._order = None
        self._rebuild(sort_key=key)

    def set_grouping(self, key: str) -> None:
        if key not in groups.GROUPINGS:
            raise KeyError(key)
        self._totals = None
        self._rebuild(grouping=key)

    def set_collapsed(self, key: str, collapsed: bool) -> None:
        """Shut (or open) the current grouping's group ``key``."""
        marker = (self.grouping, key)
        if (marker in self.collapsed) == collapsed:
            return
        if collapsed:
            self.collapsed.add(marker)
        else:
            self.collapsed.discard(marker)
        self._rebuild()

    def group_at(self, row: int) -> GroupRow | None:
        """The group whose header is at ``row`` (None for a conversation's row)."""
        if not 0 <= row < len(self.shown.rows) or self.shown.rows[row] >= 0:
            return None
        return self.shown.groups[-self.shown.rows[row] - 1]

    def group_of(self, source_row: int) -> str | None:
        """The current grouping's key for the model's ``source_row`` (None ungrouped)."""
        if self.grouping == "none" or self._source is None:
            return None
        return groups.group_keys(self._source.rows, self.grouping)[source_row]

    def passes(self, source_row: int) -> bool:
        """Whether the filter text keeps the model's ``source_row``."""
        model = self._source
        return model is not None and (not self.text or self.text in model.keys[source_row])

    def position(self, source_row: int) -> int | None:
        """Where the model's ``source_row`` is in the list as shown (None: hidden)."""
        try:
            return self.shown.rows.index(source_row)
        except ValueError:  # filtered out, or in a shut group
            return None

    def mapToSource(self, index: Index) -> QModelIndex:
        """The model's index of the conversation at ``index`` (invalid for a header)."""
        row = index.row()
        if self._source is None or not index.isValid() or not 0 <= row < len(self.shown.rows):
            return QModelIndex()
        source_row = self.shown.rows[row]
        return self._source.index(source_row, 0) if source_row >= 0 else QModelIndex()

    def mapFromSource(self, source_index: Index) -> QModelIndex:
        """The row shown for the model's ``source_index``; invalid while it is hidden."""
        at = self.position(source_index.row()) if source_index.isValid() else None
        return self.index(at, 0) if at is not None else QModelIndex()

    def _rebuild(self, **changes: str) -> None:
        for name, value in changes.items():
            setattr(self, name, value)
        model = self._source
        if model is None:
            self.shown = Arrangement()
        else:
            if self._order is None:
                self._order = groups.sort_order(model.rows, self.sort_key)
            if self._totals is None:
                self._totals = groups.totals_of(model.rows, self.grouping)
            rows = groups.kept(self._order, model.keys, self.text)
            self.shown = groups.arrange(model.rows, rows, self.grouping, self.collapsed,
                                        by_label=self.sort_key == "title",
                                        totals=self._totals)
        count = len(self.shown.rows)
        if len(self._blank) < count:
            self._blank = [""] * count
        self.setStringList(self._blank[:count])  # one reset; the rows stay in C++

    # -- what the view asks of the rows on screen --------------------------------------------
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()
        if not index.isValid() or not 0 <= row < len(self.shown.rows):
            return None
        source_row = self.shown.rows[row]
        if source_row >= 0:
            if self._source is None:
                return None
            if role == SUBTITLE_ROLE:
                return self._source.subtitle(source_row, self.grouping)
            return self._source.value(source_row, int(role))
        group = self.shown.groups[-source_row - 1]
        role = int(role)
        if role == HEADER_ROLE:
            return group
        if role == Qt.ItemDataRole.DisplayRole:
            return group.label
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{group.detail or group.label}: {group.total} conversation(s)"
        if role == COUNT_ROLE:
            return group.count
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self.group_at(index.row()) is not None:  # a header: clicked to open or shut
            return _HEADER_FLAGS
        return _CONVERSATION_FLAGS

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        return False  # the rows show the store; nothing is typed into them

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.IgnoreAction


__all__ = ["SORTS", "ConversationFilter"]
