"""The preview's loss report (L8): what the shown plan discards, and where each string goes.

The counts per kind stand on top; below, one row per exact string (kind, where it goes, page
and line, text), as ``convo compact --loss-report`` lists them. Pin keeps the selected strings
as text and Unpin lets them go: the window writes the change off the main thread and plans
again, so the row moves to the fact sheet in the plan that follows. The report is computed with
the plan, off the main thread; this pane only shows it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.compaction.loss_report import Entry, LossReport

COLUMNS = ("Kind", "Goes to", "Page · line", "Text")
ROWS_SHOWN = 5000  # a longer report lists its first rows here; the command line lists all
WHERE = {"verbatim": "kept verbatim", "fact_sheet": "fact sheet", "summary_request":
         "summary request", "summary": "summary", "nowhere": "nowhere"}


def where(entry: Entry) -> str:
    """Where an entry goes, as the table says it."""
    if entry.destination == "page":
        text = "page (read back)" if entry.read_back else "page (not surely read back)"
    else:
        text = WHERE.get(entry.destination, entry.destination)
    if entry.elided:
        text += " · elided"
    return text + (" · pinned" if entry.pinned else "")


class LossPane(QWidget):
    """Counts on top, the items below, Pin and Unpin under them."""

    pin_requested = Signal(list, bool)  # texts, True to pin / False to unpin

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self.counts.setTextFormat(Qt.TextFormat.PlainText)
        self.counts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTreeWidget()
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setSelectionMode(QTreeWidget.SelectionMode.ExtendedSelection)
        header = self.table.header()
        for i in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(i, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.pin_button = QPushButton("Pin")
        self.pin_button.setToolTip("Keep the selected strings as text on the fact sheet")
        self.unpin_button = QPushButton("Unpin")
        self.pin_button.clicked.connect(lambda: self._ask(True))
        self.unpin_button.clicked.connect(lambda: self._ask(False))
        self.table.itemSelectionChanged.connect(self._enable)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.unpin_button)
        buttons.addWidget(self.pin_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.counts)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self.report: LossReport | None = None
        self.show_report(None)

    def show_report(self, report: LossReport | None) -> None:
        """Show a report (or nothing while planning)."""
        self.report = report
        self.table.clear()
        if report is None:
            self.counts.setText("")
            self._enable()
            return
        head = [f"{len(report.entries)} exact string(s) discarded ({report.rung})",
                *report.count_lines(), *report.notes]
        stale = [t for t, state in report.pins.items() if state == "stale"]
        if stale:
            head.append(f"{len(stale)} stale pin(s), their strings are gone: "
                        + "; ".join(stale))
        self.counts.setText("\n".join(head))
        rows = []
        for entry in report.entries[:ROWS_SHOWN]:
            place = f"{entry.page} · {entry.line}" if entry.page is not None else ""
            row = QTreeWidgetItem([entry.item.kind, where(entry), place,
                                   " ".join(entry.item.text.split())])
            row.setData(0, Qt.ItemDataRole.UserRole, entry.item.text)
            rows.append(row)
        self.table.addTopLevelItems(rows)
        self._enable()

    def selected_texts(self) -> list[str]:
        return [str(i.data(0, Qt.ItemDataRole.UserRole)) for i in self.table.selectedItems()]

    def _enable(self) -> None:
        chosen = set(self.selected_texts())
        pinned = set(self.report.pins) if self.report else set()
        self.pin_button.setEnabled(bool(chosen - pinned))
        self.unpin_button.setEnabled(bool(chosen & pinned))

    def _ask(self, pin: bool) -> None:
        pinned = set(self.report.pins) if self.report else set()
        texts = [t for t in self.selected_texts() if (t in pinned) != pin]
        if texts:
            self.pin_requested.emit(texts, pin)
