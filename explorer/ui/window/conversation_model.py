"""The store's conversations as a list model that holds columns, not an object per row.

A person's archive holds tens of thousands of conversations. The model keeps the few
fields the list shows in parallel columns (:class:`ConversationColumns`) and builds a
row's text only when the view asks for it (the rows on screen). What every row needs up
front is kept as flat lists of strings: the title as shown (secrets masked once, then
reused across reloads) and the text the filter looks in (title, project folder, source).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from explorer.store import Store
from explorer.store.conversation_columns import ConversationColumns
from explorer.store.reads import Conversation
from explorer.tree.secrets import masked
from explorer.ui.plain_text import tooltip
from explorer.ui.window.format_badges import format_icon, format_name

Index = QModelIndex | QPersistentModelIndex
_USER = int(Qt.ItemDataRole.UserRole)
ID_ROLE = _USER + 1
COUNT_ROLE = _USER + 2
UPDATED_ROLE = _USER + 3
FORMAT_ROLE = _USER + 4
FORKED_FROM_ROLE = _USER + 5
TITLE_KEY_ROLE = _USER + 6
SUBTITLE_ROLE = _USER + 7
FOLDER_ROLE = _USER + 8
HEADER_ROLE = _USER + 9  # a group's header row: its GroupRow (None on a conversation)


def date_text(ts: float | None, now: datetime | None = None) -> str:
    """A short local date: the time for today, the day otherwise."""
    if not ts:
        return ""
    when = datetime.fromtimestamp(ts)
    today = (now or datetime.now()).date()
    return when.strftime("%H:%M") if when.date() == today else when.strftime("%Y-%m-%d")


def folder_name(folder: str) -> str:
    """A project folder's own name (its last part), as a person calls the project."""
    return os.path.basename(folder.rstrip("/\\")) or folder


@dataclass
class ListRows:
    """Everything the model shows, derived from one read of the columns (built off the
    main thread by :func:`prepare` when the list is refreshed)."""

    columns: ConversationColumns = field(default_factory=ConversationColumns)
    shown: list[str] = field(default_factory=list)  # each title as shown (secrets masked)
    keys: list[str] = field(default_factory=list)  # case-folded title, folder, source name
    row_of: dict[int, int] = field(default_factory=dict)


def prepare(columns: ConversationColumns, memo: dict[str, str]) -> ListRows:
    """The rows for ``columns``. ``memo`` maps a title as stored to the title as shown;
    a title seen before (every title, on a refresh) is not screened for secrets again."""
    shown = [memo.get(t) or memo.setdefault(t, masked(t) if t else "Untitled")
             for t in columns.titles]
    folder_keys = {f: f.casefold() for f in set(columns.folders)}
    source_keys = {f: format_name(f).casefold() for f in set(columns.formats)}
    keys = [f"{s.casefold()}\n{folder_keys[f]}\n{source_keys[k]}"
            for s, f, k in zip(shown, columns.folders, columns.formats, strict=True)]
    return ListRows(columns, shown, keys, {cid: row for row, cid in enumerate(columns.ids)})


class ConversationModel(QAbstractListModel):
    """One row per conversation, in the store's order (newest first)."""

    def __init__(self, store: Store, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.rows = ListRows()
        self.memo: dict[str, str] = {}  # title as stored -> as shown, kept across reloads

    # -- filling --------------------------------------------------------------------
    def reload(self) -> None:
        """Read the list again, now (the window's refreshes read off the main thread and
        hand the result to :meth:`apply`)."""
        self.apply(prepare(self.store.conversation_columns(), self.memo))

    def apply(self, rows: ListRows) -> None:
        self.beginResetModel()
        self.rows = rows
        if len(self.memo) > 2 * len(rows.shown) + 1000:  # titles renamed away: forget them
            self.memo = dict(zip(rows.columns.titles, rows.shown, strict=True))
        self.endResetModel()

    # -- what the list and the window read ------------------------------------------------
    @property
    def columns(self) -> ConversationColumns:
        return self.rows.columns

    @property
    def shown(self) -> list[str]:
        return self.rows.shown

    @property
    def keys(self) -> list[str]:
        return self.rows.keys

    def ids(self) -> list[int]:
        """Every conversation's id, in the list's order (newest first)."""
        return list(self.rows.columns.ids)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows.shown)

    def row_of(self, conv_id: int) -> int | None:
        return self.rows.row_of.get(conv_id)

    def id_at(self, row: int) -> int:
        return self.rows.columns.ids[row]

    def conversation(self, row: int) -> Conversation:
        """The conversation at ``row``, read from the store (a row holds only its columns)."""
        return self.store.conversation(self.id_at(row), boundary=False)

    def forked_from(self, row: int) -> str:
        origin = self.rows.columns.forked_from[row]
        if not origin:
            return ""
        at = self.rows.row_of.get(origin)
        return self.rows.shown[at] if at is not None else f"conversation {origin}"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()
        if not index.isValid() or not 0 <= row < len(self.rows.shown):
            return None
        return self.value(row, int(role))

    def value(self, row: int, role: int) -> Any:
        cols = self.rows.columns
        if role == Qt.ItemDataRole.DisplayRole:
            return self.rows.shown[row]
        if role == ID_ROLE:
            return cols.ids[row]
        if role == Qt.ItemDataRole.DecorationRole:
            return format_icon(cols.formats[row] or None)
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip(self._tooltip(row))
        if role == COUNT_ROLE:
            return cols.counts[row]
        if role == UPDATED_ROLE:
            return cols.updated[row]
        if role == FORMAT_ROLE:
            return cols.formats[row]
        if role == FOLDER_ROLE:
            return cols.folders[row]
        if role == FORKED_FROM_ROLE:
            return self.forked_from(row)
        if role == TITLE_KEY_ROLE:
            return self.rows.shown[row].casefold()
        if role == SUBTITLE_ROLE:
            return self.subtitle(row)
        return None

    def subtitle(self, row: int, grouping: str = "none") -> str:
        """The row's second line: size, date, project, source and where it was forked from
        (the project or the source left out under a header that says it already)."""
        cols = self.rows.columns
        count = cols.counts[row]
        bits = [f"{count} message{'' if count == 1 else 's'}"]
        when = date_text(cols.updated[row])
        if when:
            bits.append(when)
        if cols.folders[row] and grouping != "project":
            bits.append(folder_name(cols.folders[row]))
        if grouping != "source":
            bits.append(format_name(cols.formats[row] or None))
        origin = self.forked_from(row)
        if origin:
            bits.append(f"fork of {origin}")
        return " · ".join(bits)

    def _tooltip(self, row: int) -> str:
        lines = [self.rows.shown[row], self.subtitle(row)]
        if self.rows.columns.folders[row]:
            lines.append(self.rows.columns.folders[row])
        return "\n".join(lines)
