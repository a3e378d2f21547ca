"""The ladder's plan as tables: what each rung did and saved, what each part costs.

The numbers come from the plan's own record (``CompactionPlan.to_record()``),
the same record ``/compact`` prints and stores on the tip, so the window, the
command line and the stored record never disagree.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from explorer.app.context.compacting import RUNGS
from explorer.ui.preview.context_bar import paint_segments

COST_LABELS = {
    "path": "whole path (verbatim)", "head": "verbatim start", "pages": "snapshot pages",
    "facts": "fact sheet", "summary": "summary", "tail": "verbatim end",
    "overhead": "request overhead",
}
COST_COLOURS = {
    "path": "#1e88e5", "head": "#1e88e5", "pages": "#00897b", "facts": "#f9a825",
    "summary": "#7e57c2", "tail": "#43a047", "overhead": "#8d6e63", "free": "#e0e0e0",
}
BAR_HEIGHT = 16
RUNG_LABELS = {"elide": "elision", "images": "image dropping", "snapshot": "snapshots",
               "summary": "summary"}


def headline(record: dict[str, Any], target: int | None) -> str:
    """One line: rungs taken, tokens before → after, and whether the target is met."""
    tokens = record["tokens"]
    rungs = ", ".join(record["rungs"]) or "none needed"
    fit = ("" if target is None else
           f" ({'fits' if record['fits'] else 'does NOT fit'} the target {target:,})")
    return f"rungs: {rungs}; {tokens['before']:,} → {tokens['after']:,} tokens{fit}"


def plan_sentence(record: dict[str, Any], messages: int) -> str:
    """What the compaction keeps and drops, in words, from the plan's record; ``messages`` is
    the path's length (the record counts only the parts of a split)."""
    split, tokens, reports = record.get("split"), record["tokens"], record.get("reports", {})
    if not record["rungs"]:
        return (f"Nothing is dropped: all {_count(messages, 'message')} "
                f"({tokens['before']:,} tokens) are sent verbatim.")
    if split is None:
        clauses = [f"Keeps all {_count(messages, 'message')}"]
    else:
        clauses = [f"Keeps {_kept(split['head_messages'], split['tail_messages'])} verbatim",
                   f"{_count(split['middle_messages'], 'message')} "
                   f"({split['middle_tokens']:,} tokens) become {_middle(record)}"]
    elided = reports.get("elide", {}).get("count", 0)
    dropped = reports.get("images", {}).get("count", 0)
    clauses.append(f"{_count(elided, 'old tool result')} "
                   f"{'is' if elided == 1 else 'are'} shortened" if elided
                   else "no tool result is shortened")
    clauses.append(f"{_count(dropped, 'image')} dropped" if dropped else "no image is dropped")
    if "summary" not in record["rungs"]:
        clauses.append("no summary")
    return "; ".join(clauses) + "."


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _kept(head: int, tail: int) -> str:
    if head > 1 and tail > 1:
        return f"the first {head} and last {tail} messages"
    first = "the first message" if head == 1 else f"the first {head} messages"
    last = "the last message" if tail == 1 else f"the last {tail} messages"
    shown = [w for n, w in ((head, first), (tail, last)) if n]
    return " and ".join(shown) or "no message"


def _middle(record: dict[str, Any]) -> str:
    tokens = record["tokens"]
    if "summary" in record["rungs"]:
        return f"a summary ({tokens.get('summary', 0):,} tokens)"
    pages = len(record.get("pages", []))
    words = f"{_count(pages, 'snapshot page')} ({tokens.get('pages', 0):,} tokens)"
    if tokens.get("facts"):
        words += f" and a fact sheet ({tokens['facts']:,} tokens)"
    return words


def rung_rows(record: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(rung, outcome, tokens saved) for every rung of the ladder, in ladder order."""
    ran = record["rungs"]
    notes = " ".join(record.get("notes", []))
    rows = []
    for rung in RUNGS:
        if rung in ran:
            outcome, saved = "applied", f"{record['savings'].get(rung, 0):,}"
        elif f"{rung} skipped" in notes:
            outcome, saved = "skipped (see notes)", "–"
        else:
            outcome, saved = "not needed", "–"
        rows.append((RUNG_LABELS[rung], outcome, saved))
    return rows


def cost_rows(record: dict[str, Any]) -> list[tuple[str, int]]:
    """(part, tokens) of the built context; the zero rows of another rung are left out."""
    tokens = record["tokens"]
    keys = [k for k in COST_LABELS if k in tokens]
    return [(k, int(tokens[k])) for k in keys
            if tokens[k] or k in ("path", "head", "tail", "overhead")]


def fit_height(table: QTableWidget) -> None:
    """Size a short table to its rows, so the side panel has no empty scroll areas."""
    header = table.horizontalHeader().sizeHint().height()
    table.setFixedHeight(header + table.verticalHeader().length() + 2 * table.frameWidth() + 2)


def _setup(table: QTableWidget, labels: list[str]) -> None:
    table.setHorizontalHeaderLabels(labels)
    table.verticalHeader().hide()
    table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)


def _item(text: str, right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class RungTable(QTableWidget):
    """Each rung of the ladder: applied, skipped or not needed, and what it saved."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 3, parent)
        _setup(self, ["rung", "outcome", "saved tokens"])

    def show_record(self, record: dict[str, Any] | None) -> None:
        rows = rung_rows(record) if record else []
        self.setRowCount(len(rows))
        for r, (rung, outcome, saved) in enumerate(rows):
            self.setItem(r, 0, _item(rung))
            self.setItem(r, 1, _item(outcome))
            self.setItem(r, 2, _item(saved, right=True))
        for column in (1, 2):
            self.resizeColumnToContents(column)
        fit_height(self)


class CostTable(QTableWidget):
    """The token cost of each part of the built context against the window."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 3, parent)
        _setup(self, ["part", "tokens", "of window"])

    def show_record(self, record: dict[str, Any] | None, window: int) -> None:
        rows = cost_rows(record) if record else []
        if record:
            rows.append(("total", int(record["tokens"]["after"])))
        self.setRowCount(len(rows))
        for r, (key, tokens) in enumerate(rows):
            share = f"{100 * tokens / window:.2f} %" if window else "–"
            self.setItem(r, 0, _item(COST_LABELS.get(key, key)))
            self.setItem(r, 1, _item(f"{tokens:,}", right=True))
            self.setItem(r, 2, _item(share, right=True))
        for column in (1, 2):
            self.resizeColumnToContents(column)
        fit_height(self)

    def tokens_shown(self) -> dict[str, int]:
        """Label → tokens as displayed (what a person reads off the table)."""
        out = {}
        for r in range(self.rowCount()):
            label, value = self.item(r, 0), self.item(r, 1)
            if label is not None and value is not None:
                out[label.text()] = int(value.text().replace(",", ""))
        return out


class CostBar(QWidget):
    """The built context by part against the whole window, with the ladder's target marked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.segments: list[tuple[str, int]] = []
        self.window_tokens = 0
        self.target: int | None = None
        self.setMinimumHeight(BAR_HEIGHT + 2)

    def show_record(self, record: dict[str, Any] | None, window: int,
                    target: int | None) -> None:
        self.segments = cost_rows(record) if record else []
        self.window_tokens, self.target = window, target
        self.setToolTip(" · ".join(f"{COST_LABELS[k]} {t:,}" for k, t in self.segments))
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        rect = QRectF(0, 0, self.width() - 1, BAR_HEIGHT)
        p.fillRect(rect, QColor(COST_COLOURS["free"]))
        total = max(self.window_tokens, sum(t for _, t in self.segments), 1)
        paint_segments(p, rect, self.segments, total, COST_COLOURS)
        if self.target is not None:
            x = round(rect.width() * self.target / total)
            p.setPen(QPen(QColor("#212121"), 2, Qt.PenStyle.DashLine))
            p.drawLine(x, 0, x, BAR_HEIGHT)
        p.setPen(QColor("#9e9e9e"))
        p.drawRect(rect)
        p.end()
