"""The compare window: branches in columns, aligned turn by turn, scrolling in step.

The window only reads the store, except "Fork…" (one store copy). "Make
active" asks for the switch through ``branchChosen``: moving the tip is the
main window's job, as everywhere else. Questions go through ``ask_*`` methods
so tests answer them without dialogs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from explorer.app import exporting
from explorer.app.compare import MAX_COLUMNS, MIN_COLUMNS, Comparison, compare, default_choice
from explorer.app.compare import heading as message_heading
from explorer.app.compare_text import summary
from explorer.formats.exporters import EXPORTERS
from explorer.store import NotFound, Store, StoreError
from explorer.ui.compare_cells import CellLabel, ColumnHeader, DiffColors, cell_html

SUFFIXES = {"native": ".jsonl", **{name: e.suffix for name, e in EXPORTERS.items()}}


class BranchPicker(QWidget):
    """Check 2–4 of many siblings; shown only when there are more than fit side by side."""

    chosen = Signal(list)

    def __init__(self, store: Store, candidates: Sequence[int], checked: Sequence[int]) -> None:
        super().__init__()
        self.list = QListWidget()
        self.list.setMaximumHeight(110)
        for mid in candidates:
            m = store.message(mid)
            preview = " ".join(m.text.split())[:90]
            item = QListWidgetItem(f"{message_heading(m)} — {preview}")
            item.setData(Qt.ItemDataRole.UserRole, mid)
            item.setCheckState(Qt.CheckState.Checked if mid in checked
                               else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.button = QPushButton("Compare checked")
        self.hint = QLabel()
        self.list.itemChanged.connect(self._update)
        self.button.clicked.connect(lambda: self.chosen.emit(self.checked()))
        side = QVBoxLayout()
        side.addWidget(self.button)
        side.addWidget(self.hint)
        side.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(side)
        self._update()

    def checked(self) -> list[int]:
        items = (self.list.item(i) for i in range(self.list.count()))
        return [int(it.data(Qt.ItemDataRole.UserRole)) for it in items
                if it.checkState() == Qt.CheckState.Checked]

    def set_checked(self, ids: Sequence[int]) -> None:
        for i in range(self.list.count()):
            it = self.list.item(i)
            on = int(it.data(Qt.ItemDataRole.UserRole)) in ids
            it.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def _update(self) -> None:
        n = len(self.checked())
        ok = MIN_COLUMNS <= n <= MAX_COLUMNS
        self.button.setEnabled(ok)
        self.hint.setText(f"{n} checked" if ok else f"check {MIN_COLUMNS}–{MAX_COLUMNS}")


class CompareWindow(QWidget):
    branchChosen = Signal(int)
    forked = Signal(int)

    def __init__(self, store: Store, conv_id: int, message_ids: Sequence[int],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.store = store
        self.conv_id = conv_id
        self.comparison: Comparison | None = None
        self.headers: list[ColumnHeader] = []
        self.cells: list[list[CellLabel]] = []
        self.colors = DiffColors.from_palette(self.palette())
        title = store.conversation(conv_id).title
        self.setWindowTitle(f"Compare branches — {title}")
        self.resize(1200, 700)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        ids = list(message_ids)
        first = default_choice(ids) if len(ids) > MAX_COLUMNS else ids
        self.picker: BranchPicker | None = None
        if len(ids) > MAX_COLUMNS:
            self.picker = BranchPicker(store, ids, first)
            self.picker.chosen.connect(self.show_branches)
        self.header_row = QWidget()
        self.header_layout = QGridLayout(self.header_row)
        self.body = QWidget()
        self.grid = QGridLayout(self.body)
        self.grid.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setWidget(self.body)
        self.scroll_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        bar = self.scroll_area.verticalScrollBar().sizeHint().width()
        margins = self.grid.contentsMargins()
        self.header_layout.setContentsMargins(margins.left(), 0, margins.right() + bar, 0)
        layout = QVBoxLayout(self)
        if self.picker is not None:
            layout.addWidget(self.picker)
        layout.addWidget(self.status)
        layout.addWidget(self.header_row)
        layout.addWidget(self.scroll_area, 1)
        self.show_branches(first)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc closes, wherever the focus is (buttons and cells pass the key on)."""
        if event.key() == Qt.Key.Key_Escape:
            self.close()
            return
        super().keyPressEvent(event)

    # -- questions (replaced in tests) ---------------------------------------------------
    def ask_save_path(self, title: str, suggested: str, filters: str) -> tuple[Path, str] | None:
        """Where to write and in which format (the name of the chosen filter)."""
        name, chosen = QFileDialog.getSaveFileName(self, title, suggested, filters)
        if not name:
            return None
        return Path(name), chosen.split(" ", 1)[0] if chosen else "native"

    def ask_fork_title(self, suggested: str) -> str | None:
        text, ok = QInputDialog.getText(self, "Fork branch", "Title of the new conversation:",
                                        text=suggested)
        return text if ok else None

    # -- building ------------------------------------------------------------------------
    def show_branches(self, ids: list[int]) -> None:
        """Compare ``ids``; a choice that cannot be compared is explained in the window."""
        try:
            result = compare(self.store, ids, self.conv_id)
        except (ValueError, NotFound, StoreError) as e:
            self.status.setText(f"Cannot compare: {e}")
            return
        self.comparison = result
        self._clear()
        for j, column in enumerate(result.columns):
            header = ColumnHeader(j, column, self.colors)
            header.makeActive.connect(lambda j=j: self.make_active(j))
            header.fork.connect(lambda j=j: self.fork_column(j))
            header.export.connect(lambda j=j: self.export_column(j))
            self.header_layout.addWidget(header, 0, j)
            self.header_layout.setColumnStretch(j, 1)
            self.grid.setColumnStretch(j, 1)
            self.headers.append(header)
        for k, row in enumerate(result.rows):
            labels = [CellLabel(cell_html(cell, self.colors)) for cell in row]
            for j, label in enumerate(labels):
                label.setObjectName(f"cell-{k}-{j}")
                self.grid.addWidget(label, k, j)
            self.cells.append(labels)
        self.status.setText(" ".join(summary(result)) + " Highlighted words are a column's "
                            "own, struck words are the base's that the column lacks.")
        self._mark_active()

    def _where(self, result: Comparison) -> str:
        return ("separate roots" if result.ancestor_id is None
                else f"message #{result.ancestor_id}")

    def _clear(self) -> None:
        for w in [*self.headers, *(c for row in self.cells for c in row)]:
            w.setParent(None)
            w.deleteLater()
        self.headers.clear()
        self.cells.clear()

    def _mark_active(self) -> None:
        tip = self.store.conversation(self.conv_id).tip_id
        for header in self.headers:
            header.set_active(tip in header.column.message_ids)

    def cell(self, row: int, col: int) -> CellLabel:
        return self.cells[row][col]

    # -- column actions ----------------------------------------------------------------
    def make_active(self, j: int) -> None:
        assert self.comparison is not None
        self.branchChosen.emit(self.comparison.columns[j].leaf_id)
        self._mark_active()

    def fork_column(self, j: int) -> None:
        assert self.comparison is not None
        column = self.comparison.columns[j]
        conv = self.store.conversation(self.conv_id)
        title = self.ask_fork_title(f"Fork of {conv.title} ({', '.join(column.models)})")
        if title is None:
            return
        try:
            new = self.store.fork(self.conv_id, column.leaf_id, title or None)
        except (StoreError, NotFound) as e:
            self.status.setText(f"Fork failed: {e}")
            return
        self.status.setText(f"Branch {chr(ord('A') + j)} forked into conversation {new}")
        self.forked.emit(new)

    def export_column(self, j: int) -> None:
        assert self.comparison is not None
        column = self.comparison.columns[j]
        filters = ";;".join(f"{fmt} (*{SUFFIXES[fmt]})" for fmt in exporting.FORMATS)
        answer = self.ask_save_path("Export branch", f"branch-{column.leaf_id}.jsonl", filters)
        if answer is None:
            return
        dest, fmt = answer
        try:
            notes: list[str] = []
            lines = exporting.export_to_file(self.store, self.conv_id, dest, fmt,
                                             column.leaf_id, notes)
        except (StoreError, NotFound, OSError) as e:
            self.status.setText(f"Export failed: {e}")
            return
        extra = f" ({len(notes)} note(s): {notes[0]})" if notes else ""
        self.status.setText(f"Wrote {lines} lines to {dest}{extra}")
