"""The compare window: branches in columns, aligned turn by turn, scrolling in step.

A window belongs to the conversation it was opened on: "Make active" names
that conversation in ``branchChosen`` (moving the tip is the main window's
job), and Fork and Export read from it, whatever the main window shows by
then. Questions go through ``ask_*`` methods so tests answer them without
dialogs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QEvent, QMetaMethod, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QGridLayout,
    QInputDialog,
    QLabel,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from explorer.app.calls.probe_facts import header_line
from explorer.app.comparing.columns import (
    MAX_COLUMNS,
    CompareError,
    Comparison,
    Mode,
    active_among,
    compare,
    default_choice,
)
from explorer.app.comparing.text import summary
from explorer.app.sharing import exporting
from explorer.app.sharing.exporting import EXPORTERS
from explorer.store import NotFound, Store, StoreError
from explorer.ui import file_dialogs
from explorer.ui.compare.cells import CellWidget, DiffColors
from explorer.ui.compare.costs import ColumnCosts
from explorer.ui.compare.files_tab import FilesTab
from explorer.ui.compare.header import ColumnHeader
from explorer.ui.compare.toolbar import BranchPicker, DiffBar
from explorer.ui.sharing.redaction_switch import window_redacts

SUFFIXES = {"native": ".jsonl", **{name: e.suffix for name, e in EXPORTERS.items()}}
LEGEND = ("Highlighted words are a column's own that the base lacks; struck words are the "
          "base's that the column lacks. The base itself carries no marks.")


Runner = Callable[[str, Callable[[], object], Callable[[object], object],
                   Callable[[BaseException], object]], object]
"""what, work, then, failed: a job off the main thread (the main window's operations)."""


class CompareWindow(QWidget):
    branchChosen = Signal(int, int)  # conversation, message to make the tip
    forked = Signal(int)

    def __init__(self, store: Store, conv_id: int, message_ids: Sequence[int],
                 parent: QWidget | None = None, clicked: int | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.store = store
        self.conv_id = conv_id
        self.runner: Runner | None = None  # set by the window that opened this one: long
        # writes (a fork, an export) go there, off its main thread
        self.comparison: Comparison | None = None
        self.headers: list[ColumnHeader] = []
        self.cells: list[list[CellWidget]] = []
        self.row_labels: list[QLabel] = []
        self.ids: list[int] = []
        self.base_id: int | None = None
        self.mode: Mode = "words"
        self.changes_only = False
        self.colors = DiffColors.from_palette(self.palette())
        self._stale = False  # colours changed while it was closed: rebuild when shown
        self.costs = ColumnCosts(store, self._show_costs, self)
        self.setWindowTitle(f"Compare branches — {store.conversation(conv_id).display_title}"
                            f" (conversation {conv_id})")
        self.resize(1200, 760)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setStyleSheet("font-weight:bold")
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setStyleSheet(f"color:{self.colors.muted}")
        ids = list(message_ids)
        first = ids
        self.picker: BranchPicker | None = None
        if len(ids) > MAX_COLUMNS:
            active = active_among(store, conv_id, ids)
            first = default_choice(ids, clicked, active)
            notes = {m: t for m, t in ((clicked, "clicked"), (active, "active")) if m is not None}
            self.picker = BranchPicker(store, ids, first, notes)
            self.picker.chosen.connect(self.show_branches)
        self.bar = DiffBar(self.mode)
        self.bar.modeChosen.connect(self.set_mode)
        self.bar.changesOnlyToggled.connect(self.set_changes_only)
        self.bar.baseChosen.connect(self.set_base)
        self.header_row = QWidget()
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.body = QWidget()
        self.layout_ = QVBoxLayout(self)
        if self.picker is not None:
            self.layout_.addWidget(self.picker)
        self.layout_.addWidget(self.bar)
        self.layout_.addWidget(self.status)
        self.layout_.addWidget(self.legend)
        self.layout_.addWidget(self.header_row)
        self.files = FilesTab(store)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.scroll_area, "Turns")
        self.tabs.addTab(self.files, "Files")
        self.tabs.setTabToolTip(1, "What each branch created, edited or deleted, and the diff "
                                   "between what they end with (convo effects)")
        self.layout_.addWidget(self.tabs, 1)
        self.show_branches(first)

    def changeEvent(self, event: QEvent) -> None:
        """A theme switched while the window is open: marks and legend take the new colours."""
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            colors = DiffColors.from_palette(self.palette())
            if colors != self.colors:
                self.colors = colors
                self.legend.setStyleSheet(f"color:{colors.muted}")
                if self.isVisible():  # a closed window is rebuilt, if ever, when shown again
                    self._rebuild()
                else:
                    self._stale = True
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """A read still running stops and is waited for: the store may close next."""
        self.settle()
        super().closeEvent(event)

    def settle(self) -> None:
        for runner in (self.costs.runner, self.files.runner):
            runner.cancel()
            runner.wait()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self._rebuild()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc closes, wherever the focus is (buttons and cells pass the key on)."""
        if event.key() == Qt.Key.Key_Escape:
            self.close()
            return
        super().keyPressEvent(event)

    # -- questions (replaced in tests) ---------------------------------------------------
    def ask_save_path(self, title: str, suggested: str, filters: str) -> tuple[Path, str] | None:
        """Where to write and in which format (the name of the chosen filter)."""
        answer = file_dialogs.save_path(self, title, suggested, filters)
        if answer is None:
            return None
        name, chosen = answer
        return name, chosen.split(" ", 1)[0] if chosen else "native"

    def ask_fork_title(self, suggested: str) -> str | None:
        text, ok = QInputDialog.getText(self, "Fork branch", "Title of the new conversation:",
                                        text=suggested)
        return text if ok else None

    # -- choosing what to show -----------------------------------------------------------
    def show_branches(self, ids: list[int]) -> None:
        """Compare ``ids`` in as many columns as there are ids."""
        self.ids = list(ids)
        self.base_id = None
        self._rebuild()

    def set_mode(self, mode: str) -> None:
        self.mode = mode  # type: ignore[assignment]  # one of MODES, from the bar's buttons
        self._rebuild()

    def set_changes_only(self, on: bool) -> None:
        self.changes_only = on
        self._rebuild()

    def set_base(self, j: int) -> None:
        if self.comparison is not None and 0 <= j < len(self.comparison.columns):
            self.base_id = self.comparison.columns[j].chosen_id
            self._rebuild()

    def _rebuild(self) -> None:
        try:
            result = compare(self.store, self.ids, self.conv_id, base=self.base_id,
                             mode=self.mode, changes_only=self.changes_only)
        except (CompareError, NotFound, StoreError) as e:
            self.status.setText(f"Cannot compare: {e}")
            return
        self.comparison = result
        self.bar.show_comparison(result)
        self._build_headers(result)
        if self.runner is not None:  # opened by a window, whose close ends these reads
            self.read_beside()
        self._build_rows(result)
        self.status.setText(" ".join(summary(result)))
        self.legend.setText("" if result.mode == "off" else LEGEND)
        self.legend.setVisible(result.mode != "off")
        self.mark_active()

    def _build_headers(self, result: Comparison) -> None:
        row = QWidget()
        grid = QGridLayout(row)
        bar = self.scroll_area.verticalScrollBar().sizeHint().width()
        grid.setContentsMargins(9, 0, 9 + bar, 0)
        self.headers = []
        for j, column in enumerate(result.columns):
            header = ColumnHeader(j, column, self.colors, base=j == result.base,
                                  probe=header_line(self.store, column.chosen_id))
            header.makeActive.connect(lambda j=j: self.make_active(j))
            header.fork.connect(lambda j=j: self.fork_column(j))
            header.export.connect(lambda j=j: self.export_column(j))
            grid.addWidget(header, 0, j)
            grid.setColumnStretch(j, 1)
            self.headers.append(header)
        self.layout_.replaceWidget(self.header_row, row)
        self.header_row.deleteLater()
        self.header_row = row
        row.show()

    def _build_rows(self, result: Comparison) -> None:
        body = QWidget()
        grid = QGridLayout(body)
        grid.setAlignment(Qt.AlignmentFlag.AlignTop)
        grid.setVerticalSpacing(4)
        n = len(result.columns)
        self.cells, self.row_labels = [], []
        for j in range(n):
            grid.setColumnStretch(j, 1)
        for k, row in enumerate(result.rows):
            same = result.same_rows[k]
            label = QLabel(f"Turn {k + 1}" + (" · the same in every column" if same else ""))
            label.setStyleSheet(f"color:{self.colors.muted}; margin-top:6px")
            grid.addWidget(label, 2 * k, 0, 1, n)
            self.row_labels.append(label)
            if same and result.changes_only:
                self.cells.append([])
                continue
            cells = [CellWidget(cell, self.colors) for cell in row]
            for j, w in enumerate(cells):
                w.setObjectName(f"cell-{k}-{j}")
                grid.addWidget(w, 2 * k + 1, j)
            self.cells.append(cells)
        grid.addWidget(QWidget(), 2 * len(result.rows), 0)
        grid.setRowStretch(2 * len(result.rows), 1)  # rows keep their height, the rest is space
        self.scroll_area.setWidget(body)  # the old body is deleted with it
        self.body = body

    def read_beside(self) -> None:
        """The columns' costs and file effects, read off the main thread. Only a window
        opened by the main window reads them: its close waits for them before the store
        can close."""
        if self.comparison is not None:
            self.costs.ask(self.comparison)
            self.files.set_branches(self.conv_id, [c.leaf_id for c in self.comparison.columns])

    def _show_costs(self, texts: list[str]) -> None:
        for header, text in zip(self.headers, texts, strict=False):
            header.cost_label.setText(text)

    def mark_active(self) -> None:
        """Which column holds the tip now: its button says "✓ Active", and the summary's
        "(the active branch)" moves with it."""
        tip = self.store.conversation(self.conv_id).tip_id
        active = None
        for j, header in enumerate(self.headers):
            header.set_active(tip in header.column.message_ids)
            active = j if header.active else active
        if self.comparison is not None and self.comparison.active != active:
            self.comparison = replace(self.comparison, active=active)
            self.status.setText(" ".join(summary(self.comparison)))

    def cell(self, row: int, col: int) -> CellWidget:
        return self.cells[row][col]

    # -- column actions (always on this window's conversation) ---------------------------
    def make_active(self, j: int) -> None:
        """Ask for column ``j``'s branch to become the tip; whoever writes it calls
        :meth:`mark_active` once it is written (the main window, off its main thread)."""
        assert self.comparison is not None
        self.branchChosen.emit(self.conv_id, self.comparison.columns[j].leaf_id)
        if not self.isSignalConnected(QMetaMethod.fromSignal(self.branchChosen)):
            self.mark_active()

    def fork_column(self, j: int) -> None:
        assert self.comparison is not None
        column = self.comparison.columns[j]
        conv = self.store.conversation(self.conv_id)
        title = self.ask_fork_title(f"Fork of {conv.display_title} ({column.label})")
        if title is None:
            return
        leaf = column.leaf_id

        def done(new: object) -> None:
            assert isinstance(new, int)
            self.status.setText(
                f"Branch {chr(ord('A') + j)} forked into conversation {new}, which the main "
                f"window now shows; this window still compares conversation {self.conv_id}, "
                f"“{self.store.conversation(self.conv_id).display_title}”.")
            self.forked.emit(new)

        def failed(error: BaseException) -> None:
            if not isinstance(error, StoreError | NotFound):
                raise error
            self.status.setText(f"Fork failed: {error}")

        self._run("Forking a branch", lambda: self.store.fork(self.conv_id, leaf, title or None),
                  done, failed)

    def _run(self, what: str, work: Callable[[], object], done: Callable[[object], object],
             failed: Callable[[BaseException], object]) -> None:
        """``work`` on the opening window's operations (off its main thread), or here when
        this window was opened on its own."""
        if self.runner is not None:
            self.runner(what, work, done, failed)
            return
        try:
            result = work()
        except (StoreError, NotFound, OSError) as e:
            failed(e)
            return
        done(result)

    def export_column(self, j: int) -> None:
        assert self.comparison is not None
        column = self.comparison.columns[j]
        filters = ";;".join(f"{fmt} (*{SUFFIXES[fmt]})" for fmt in exporting.FORMATS)
        answer = self.ask_save_path("Export branch", f"branch-{column.leaf_id}.jsonl", filters)
        if answer is None:
            return
        dest, fmt = answer
        redact = window_redacts(self)
        notes: list[str] = []

        def work() -> int:
            return exporting.export_to_file(self.store, self.conv_id, dest, fmt,
                                            column.leaf_id, notes, redact=redact)

        def done(lines: object) -> None:
            extra = f" ({len(notes)} note(s): {notes[0]})" if notes else ""
            self.status.setText(f"Wrote {lines} lines to {dest}{extra}")

        def failed(error: BaseException) -> None:
            if not isinstance(error, StoreError | NotFound | OSError):
                raise error
            self.status.setText(f"Export failed: {error}")

        self._run("Exporting a branch", work, done, failed)
