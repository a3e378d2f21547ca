"""The import dialog (progress, Cancel, then the report) and drag-and-drop of files to import.

The dialog stays open after the import so the person can read what was
repaired or skipped: an import that quietly dropped records would be worse
than one that failed loudly.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.app.importing.run import ImportProgress, ImportReport
from explorer.store import Store
from explorer.store.import_writes import ImportOutcome
from explorer.tree.secrets import masked
from explorer.ui.importing.worker import ImportJob
from explorer.ui.plain_text import tooltip
from explorer.ui.window.format_badges import format_icon

PROGRESS_STEPS = 1000
ID_ROLE = int(Qt.ItemDataRole.UserRole) + 1


@dataclass
class ReportLine:
    """One line of the report as shown: a section, a conversation, or a note under it."""

    text: str
    kind: str  # section | conversation | note | error | skipped
    children: list[ReportLine] = field(default_factory=list)
    source_format: str | None = None
    conversation_id: int | None = None


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def report_summary(report: ImportReport) -> str:
    head = (f"{_count(len(report.conversations), 'conversation')}: "
            f"{_count(report.added_messages, 'message')} added, "
            f"{report.present_messages} already present.")
    if report.cancelled:
        head = ("Import cancelled. Imported before the cancel, each conversation whole — "
                + head[0].lower() + head[1:])
    return head


def _conversation_line(c: ImportOutcome) -> ReportLine:
    notes = [ReportLine(c.joined, "note")] if c.joined else []
    notes += [ReportLine(f"repaired/skipped: {n}", "note") for n in c.notes]
    notes += [ReportLine(f"not messages: {k} ×{v}", "note")
              for k, v in sorted(c.ignored_records.items())]
    if c.incomplete:
        notes.append(ReportLine("ends mid-turn: the last clean boundary is marked", "note"))
    title = masked(c.title) if c.title else "Untitled"
    text = (f"{title} — {c.added} added, {c.already_present} already present"
            + (f" ({_count(len(notes), 'note')})" if notes else ""))
    return ReportLine(text, "conversation", notes, c.source_format, c.conversation_id)


def report_outline(report: ImportReport) -> list[ReportLine]:
    """The report as sections: conversations (with their notes), errors, skipped files."""
    lines = [ReportLine(f"Conversations ({len(report.conversations)})", "section",
                        [_conversation_line(c) for c in report.conversations])]
    if report.errors:
        lines.append(ReportLine(f"Errors ({len(report.errors)})", "section",
                                [ReportLine(e, "error") for e in report.errors]))
    if report.skipped_files:
        lines.append(ReportLine(f"Skipped files ({len(report.skipped_files)})", "section",
                                [ReportLine(s, "skipped") for s in report.skipped_files]))
    return lines


def _megabytes(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n / 1000:.0f} kB"


RATE_WINDOW_S = 5.0


class Rate:
    """Speed over the last few seconds and the time left at that speed.

    Messages are counted when stored, so while one big file is being read the
    speed is in bytes; once messages arrive it is given in messages per second.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.samples: deque[tuple[float, int, int]] = deque()
        self.total = 0

    def add(self, p: ImportProgress) -> None:
        now = self.clock()
        self.total = p.bytes_total
        self.samples.append((now, p.bytes_done, p.messages_done))
        while len(self.samples) > 2 and now - self.samples[0][0] > RATE_WINDOW_S:
            self.samples.popleft()

    def text(self) -> str:
        if len(self.samples) < 2:
            return ""
        (t0, b0, m0), (t1, b1, m1) = self.samples[0], self.samples[-1]
        span = t1 - t0
        if span <= 0 or b1 <= b0:
            return ""
        speed = (f"{(m1 - m0) / span:,.0f} messages/s" if m1 > m0
                 else f"{(b1 - b0) / span / 1e6:.1f} MB/s")
        left = (self.total - b1) / ((b1 - b0) / span)
        return f"{speed} · about {_duration(left)} left"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes} min {secs:02d} s"


class ImportDialog(QDialog):
    """Runs one import and shows its progress, then its report.

    ``importFinished(ImportReport)`` fires when the import ends (reload the
    conversation list then); ``conversationChosen(int)`` when a conversation
    in the report is double-clicked.
    """

    importFinished = Signal(object)
    conversationChosen = Signal(int)

    def __init__(self, store: Store, paths: Sequence[Path], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import")
        self.setMinimumWidth(560)
        self.job = ImportJob(store, paths, self)
        self.rate = Rate()
        self.heading = QLabel(f"Importing {_count(len(self.job.paths), 'item')}…")
        self.file_label = QLabel("")
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.count_label = QLabel("")
        for label in (self.heading, self.file_label, self.count_label):  # file names, errors
            label.setTextFormat(Qt.TextFormat.PlainText)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, PROGRESS_STEPS)
        self.report_view = QTreeWidget()
        self.report_view.setHeaderHidden(True)
        self.report_view.setUniformRowHeights(True)
        self.report_view.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self._layout()
        self.job.progressed.connect(self._show_progress)
        self.job.finished.connect(self._show_report)
        self.buttons.rejected.connect(self.reject)
        self.report_view.itemDoubleClicked.connect(self._item_chosen)

    def _layout(self) -> None:
        box = QVBoxLayout(self)
        for w in (self.heading, self.progress_bar, self.file_label, self.count_label):
            box.addWidget(w)
        box.addWidget(self.report_view, 1)
        box.addWidget(self.buttons)

    @property
    def cancel_button(self) -> QPushButton:
        return self.buttons.button(QDialogButtonBox.StandardButton.Cancel)

    def start(self) -> None:
        self.job.start()

    def is_running(self) -> bool:
        return self.job.is_running()

    def cancel(self) -> None:
        """Answers at once; the import stops at its next check (reading stops within a
        quarter megabyte, a conversation being written is finished whole)."""
        if self.job.report is None:
            self.job.cancel()
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText("Cancelling…")
            self.heading.setText("Cancelling: what was stored stays, each conversation whole…")

    def reject(self) -> None:
        """Escape or Cancel while importing cancels; once done, it closes."""
        if self.job.report is None:
            self.cancel()
            return
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.job.report is None:
            self.cancel()
            event.ignore()
            return
        super().closeEvent(event)

    def _show_progress(self, p: ImportProgress) -> None:
        if p.bytes_total > 0:
            self.progress_bar.setValue(p.bytes_done * PROGRESS_STEPS // p.bytes_total)
        else:
            self.progress_bar.setRange(0, 0)
        metrics = self.file_label.fontMetrics()
        width = max(200, self.file_label.width())
        self.file_label.setText(metrics.elidedText(p.current_file, Qt.TextElideMode.ElideMiddle,
                                                   width))
        messages = _count(p.messages_done, "message")
        # Before the first conversation is whole (one huge session), "in 0 conversations"
        # read as if the messages went nowhere.
        counts = (f"{messages} in {_count(p.conversations_done, 'conversation')}"
                  if p.conversations_done else f"{messages} so far")
        self.rate.add(p)
        # A line of its own (beside the counts it was cut off); none once every byte is
        # read: what is left (the last rows, a big conversation's views) has no pace to
        # measure, and "about 1 s left" stayed up through seconds of preparing.
        pace = self.rate.text() if p.bytes_done < p.bytes_total else ""
        self.count_label.setText(f"{counts} · "
                                 f"{_megabytes(p.bytes_done)} of {_megabytes(p.bytes_total)}"
                                 + (f"\n{pace}" if pace else ""))

    def _show_report(self, report: ImportReport) -> None:
        self.progress_bar.setRange(0, PROGRESS_STEPS)
        if not report.cancelled:
            self.progress_bar.setValue(PROGRESS_STEPS)
        self.heading.setText(report_summary(report))
        self.heading.setWordWrap(True)
        self.file_label.hide()
        self.count_label.hide()  # the heading counts; a speed and time left are over
        self._fill_report(report_outline(report))
        self.report_view.show()
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Close)
        self.importFinished.emit(report)

    def _fill_report(self, lines: list[ReportLine]) -> None:
        self.report_view.clear()
        for line in lines:
            item = self._item(line)
            self.report_view.addTopLevelItem(item)
            item.setExpanded(line.kind == "section" and line.text.split(" (")[0] != "Skipped files")

    def _item(self, line: ReportLine) -> QTreeWidgetItem:
        item = QTreeWidgetItem([line.text])
        item.setToolTip(0, tooltip(line.text))
        style = self.style()
        if line.kind == "conversation":
            item.setIcon(0, format_icon(line.source_format))
            item.setData(0, ID_ROLE, line.conversation_id)
        elif line.kind == "error":
            item.setIcon(0, style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical))
        elif line.kind == "note":
            item.setIcon(0, style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation))
        elif line.kind == "section":
            font = item.font(0)
            font.setBold(True)
            item.setFont(0, font)
        for child in line.children:
            item.addChild(self._item(child))
        return item

    def _item_chosen(self, item: QTreeWidgetItem, _column: int) -> None:
        conv_id = item.data(0, ID_ROLE)
        if conv_id is not None:
            self.conversationChosen.emit(int(conv_id))


def start_import_dialog(store: Store, paths: Sequence[Path], parent: QWidget | None = None,
                        ) -> ImportDialog:
    """Open the dialog (not blocking the window) and start importing ``paths``."""
    dialog = ImportDialog(store, paths, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    dialog.start()
    return dialog
