"""The panes of the compaction preview that show one plan: its costs beside its parts.

Above both, ``summary`` says in one sentence what the compaction keeps and drops (the
window places it); on the left the headline, the ladder, the token costs against the window
and the plan's notes, scrolling rather than squeezing its fixed-height tables when the window
is short; on the right the verbatim start, the exact snapshot pages, the fact sheet and the
verbatim end, each titled with its size and tokens; beside the fact sheet, the loss report
(what the plan discards and where each exact string goes, L8).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from explorer.ui.preview.loss_pane import LossPane
from explorer.ui.preview.page_viewer import PageViewer
from explorer.ui.preview.plan_view import CostBar, CostTable, RungTable, headline, plan_sentence
from explorer.ui.preview.worker import PreviewResult

SIDE_MIN_WIDTH = 340


def _text_box() -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    return box


def _group(title: str, child: QWidget) -> QGroupBox:
    box = QGroupBox(title)
    QVBoxLayout(box).addWidget(child)
    return box


def _plain_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)  # headlines and notes name imported text
    return label


class PlanPanes(QSplitter):
    """Costs on the left, the parts of the compacted context on the right."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.headline, self.notes = _plain_label(), _plain_label()
        self.summary = _plain_label()
        for label in (self.headline, self.summary):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.rung_table, self.cost_table, self.cost_bar = RungTable(), CostTable(), CostBar()
        self.head_text, self.facts_text, self.tail_text = _text_box(), _text_box(), _text_box()
        self.pages = PageViewer()
        self.head_box = _group("Verbatim start", self.head_text)
        self.pages_box = _group("Snapshot pages", self.pages)
        self.facts_box = _group("Fact sheet", self.facts_text)
        self.loss = LossPane()
        self.facts_tabs = QTabWidget()
        self.facts_tabs.addTab(self.facts_box, "Fact sheet")
        self.facts_tabs.addTab(self.loss, "Loss report")
        self.tail_box = _group("Verbatim end", self.tail_text)
        side = self._side()
        self.addWidget(side)
        self.addWidget(self._parts())
        self.setStretchFactor(1, 3)
        side.setMinimumWidth(SIDE_MIN_WIDTH)
        self.setSizes([380, 900])
        self.show_result(None)

    def _side(self) -> QScrollArea:
        side = QWidget()
        side_layout = QVBoxLayout(side)
        costs = QWidget()
        cost_layout = QVBoxLayout(costs)
        cost_layout.setContentsMargins(0, 0, 0, 0)
        cost_layout.addWidget(self.cost_table)
        cost_layout.addWidget(self.cost_bar)
        for w in (self.headline, _group("Ladder", self.rung_table),
                  _group("Token cost against the window", costs), self.notes):
            side_layout.addWidget(w)
        side_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return scroll

    def _parts(self) -> QSplitter:
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.facts_tabs)
        bottom.addWidget(self.tail_box)
        right = QSplitter(Qt.Orientation.Vertical)
        parts: tuple[tuple[QWidget, int], ...] = ((self.head_box, 1), (self.pages_box, 3),
                                                  (bottom, 2))
        for part, stretch in parts:
            right.addWidget(part)
            right.setStretchFactor(right.count() - 1, stretch)
        return right

    def show_result(self, result: PreviewResult | None) -> None:
        """Show a plan, or empty panes while planning or after a failure."""
        record = result.record if result else None
        plan = result.plan if result else None
        split = plan.split if plan else None
        self.headline.setText(headline(record, plan.target) if record and plan else "")
        self.summary.setText(plan_sentence(record, len(plan.path)) if record and plan else "")
        self.rung_table.show_record(record)
        window = (plan.window or 0) if plan else 0
        self.cost_table.show_record(record, window)
        self.cost_bar.show_record(record, window, plan.target if plan else None)
        notes = [f"note: {n}" for n in plan.notes] if plan else []
        self.notes.setText("\n".join([*(result.cache if result else ()), *notes]))
        if plan is not None and split is None:
            self.head_text.setPlainText("No compaction: the whole path is sent verbatim.")
        else:
            self.head_text.setPlainText(result.head_text if result else "")
        self.tail_text.setPlainText(result.tail_text if result else "")
        self.facts_text.setPlainText(plan.facts.text if plan and plan.facts else "")
        self.loss.show_report(result.loss if result else None)
        pngs = [p.png for p in plan.pages] if plan else []
        self.pages.set_pages(pngs, list(result.images) if result else [])
        tokens = record["tokens"] if record else {}
        self.head_box.setTitle(_title("Verbatim start", len(split.head) if split else None,
                                      tokens.get("head")))
        self.pages_box.setTitle(_title("Snapshot pages", len(pngs), tokens.get("pages"), "page"))
        self.facts_box.setTitle(_title("Fact sheet", None, tokens.get("facts")))
        self.tail_box.setTitle(_title("Verbatim end", len(split.tail) if split else None,
                                      tokens.get("tail")))


def _title(name: str, count: int | None, tokens: int | None, noun: str = "message") -> str:
    bits = [name]
    if count is not None:
        bits.append(f"{count} {noun}{'' if count == 1 else 's'}")
    if tokens is not None:
        bits.append(f"{tokens:,} tokens")
    return " · ".join(bits)
