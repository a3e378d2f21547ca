"""File → Find my conversations: the agents' session folders, ticked, then synced.

The search and the sync run on the window's task runner; the dialog only shows
what they found and what they imported. A tool without sessions is listed
unticked (so a person sees where the program looked), a folder that could not be
read is named in its row's tooltip.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sources import Found, find_sources, iso
from explorer.app.importing.sync import SyncProgress, SyncReport, sync_sources
from explorer.store import Store
from explorer.ui.background.tasks import Task, TaskRunner, Ticket

COLUMNS = ("Tool", "Sessions", "Size", "Newest", "Folder")


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MB" if n >= 1 << 20 else f"{n / 1024:.0f} KB"


class SourcesDialog(QDialog):
    """Lists what :func:`find_sources` found; Import syncs the ticked tools."""

    synced = Signal(object)  # the SyncReport

    def __init__(self, store: Store, tasks: TaskRunner, parent: QWidget | None = None,
                 env: Environment | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Find my conversations")
        self.store, self.tasks, self.env = store, tasks, env
        self.table = QTreeWidget(self)
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setRootIsDecorated(False)
        self.status = QLabel("Looking in the places each agent keeps its sessions…", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.import_button = QPushButton("Import selected", self)
        self.import_button.setEnabled(False)
        self.stop_button = QPushButton("Stop", self)
        self.stop_button.setToolTip("Stop after the session being read; what was read stays "
                                    "imported, and importing again goes on from there")
        self.stop_button.hide()
        buttons.addButton(self.import_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.stop_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.import_button.clicked.connect(self.import_selected)
        self.stop_button.clicked.connect(self.stop)
        self.progress = QProgressBar(self)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.task: Task | None = None
        self.stopping = threading.Event()
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self.resize(820, 360)
        self.found: list[Found] = []
        self.tasks.run(self._search_job(), on_done=self._show, on_failed=self._failed)

    def _search_job(self) -> Callable[[Ticket], list[Found]]:
        env = self.env
        return lambda _ticket: find_sources(env)

    def _show(self, found: list[Found]) -> None:
        self.found = found
        self.table.clear()
        for f in found:
            newest = (iso(f.newest) or "")[:16].replace("T", " ")
            cells = [f.tool, str(f.sessions) if f.exists else "not found",
                     _size(f.size) if f.exists else "", newest, str(f.path)]
            item = QTreeWidgetItem(cells)
            item.setData(0, Qt.ItemDataRole.UserRole, f.tool)
            item.setCheckState(0, Qt.CheckState.Checked if f.sessions else
                               Qt.CheckState.Unchecked)
            if not f.sessions:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
            if f.problems:
                item.setToolTip(0, "\n".join(f.problems))
                item.setToolTip(4, "\n".join(f.problems))
            self.table.addTopLevelItem(item)
        for column in range(len(COLUMNS) - 1):
            self.table.resizeColumnToContents(column)
        total = sum(f.sessions for f in found)
        self.status.setText(f"{total} sessions found. Tick the tools to import; importing again "
                            "later adds only what is new.")
        self.import_button.setEnabled(total > 0)

    def checked_tools(self) -> set[str]:
        out = set()
        for i in range(self.table.topLevelItemCount()):
            item = self.table.topLevelItem(i)
            if item is not None and item.checkState(0) == Qt.CheckState.Checked:
                out.add(str(item.data(0, Qt.ItemDataRole.UserRole)))
        return out

    def import_selected(self) -> None:
        tools = self.checked_tools()
        if not tools:
            self.status.setText("Nothing is ticked.")
            return
        self.import_button.setEnabled(False)
        self.status.setText(f"Importing from {', '.join(sorted(tools))}…")
        self.progress.setRange(0, 0)
        self.progress.show()
        self.stop_button.setEnabled(True)
        self.stop_button.show()
        store, env = self.store, self.env
        stopping = self.stopping = threading.Event()  # asked by the sync between sessions

        def job(ticket: Ticket) -> SyncReport:
            return sync_sources(store, env, tools, cancel=stopping.is_set,
                                progress=_every_percent(ticket.report))
        self.task = self.tasks.run(job, on_done=self._synced, on_failed=self._failed,
                                   on_progress=self._progressed, refresh=("conversations",))

    def stop(self) -> None:
        """Stop the import after the session being read (what was read stays)."""
        self.stop_button.setEnabled(False)
        self.status.setText("Stopping after the session being read…")
        self.stopping.set()  # the report still arrives: it says what was imported

    def _progressed(self, p: object) -> None:
        if not isinstance(p, SyncProgress) or not p.total:
            return
        self.progress.setFormat(f"{p.done:,} of {p.total:,} sessions")
        self.progress.setRange(0, 1000)
        self.progress.setValue(round(1000 * (p.bytes_done / p.bytes_total if p.bytes_total
                                             else p.done / p.total)))

    def _ended(self) -> None:
        self.task = None
        self.progress.hide()
        self.stop_button.hide()
        self.import_button.setEnabled(True)

    def _synced(self, report: SyncReport) -> None:
        self._ended()
        problems = f" {len(report.errors):,} could not be read." if report.errors else ""
        stopped = (" Stopped before the end: importing again goes on from there."
                   if report.cancelled else "")
        self.status.setText(
            f"{report.added_messages:,} new messages in {len(report.conversations):,} "
            f"conversations ({report.unchanged:,} sessions unchanged).{problems}{stopped}")
        if report.errors:
            self.status.setToolTip("\n".join(report.errors))
        self.import_button.setEnabled(True)
        self.synced.emit(report)

    def _failed(self, error: BaseException) -> None:
        self._ended()
        self.status.setText(f"Failed: {error}")


def _every_percent(report: Callable[[object], None]) -> Callable[[SyncProgress], None]:
    """Pass on a sync's progress when it has moved by a thousandth (25,000 sessions would
    otherwise send 25,000 signals to the window)."""
    last = [-1]

    def hook(p: SyncProgress) -> None:
        step = (1000 * p.bytes_done // p.bytes_total) if p.bytes_total else p.done
        if step != last[0] or p.done == p.total:
            last[0] = step
            report(p)
    return hook
