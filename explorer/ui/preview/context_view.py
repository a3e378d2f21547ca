""""Context at this point" and "Compare context": what the model saw at a node, and how two
such contexts differ, with the snapshot pages shown exactly as they were sent.

The contexts are built off the main thread (the ladder draws pages) by the one pipeline in
``explorer.app.context.at``; these windows only lay the result out.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.app.context.at import NodeContext, SentPart
from explorer.app.context.diff import ContextDiff, Row
from explorer.ui.preview.page_viewer import PageViewer

STATE_COLORS = {"verbatim": "#2b8a3e", "elided": "#e67700", "image dropped": "#e67700",
                "paged": "#1c7ed6", "summarized": "#7048e8", "redacted": "#c92a2a",
                "absent": "#868e96"}
CHANGE_COLORS = {"entered": "#2b8a3e", "left": "#c92a2a", "folded into pages": "#1c7ed6",
                 "summarized": "#7048e8", "elided": "#e67700", "restored": "#0b7285"}


def _item(text: str, color: str | None = None, right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if color:
        item.setForeground(QColor(color))
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def _table(headers: Sequence[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _plain() -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    return box


def _page_tokens(ctx: NodeContext) -> int:
    return sum(p.tokens for p in ctx.parts() if p.kind == "page")


def _short(text: str, n: int = 120) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


class NodeContextPanel(QWidget):
    """One node's request: a row per part (section, message, kind, state, tokens), the
    selected part's full text, or its page as sent."""

    COLUMNS = ("Section", "Message", "Role", "Kind", "State", "Tokens", "Text")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel("Building the context…")
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setWordWrap(True)
        self.table = _table(self.COLUMNS)
        self.text = _plain()
        self.pages = PageViewer()
        self.detail = QStackedWidget()
        self.detail.addWidget(self.text)
        self.detail.addWidget(self.pages)
        self.notes = QLabel()
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setSizes([420, 300])
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(split, 1)
        layout.addWidget(self.notes)
        self.parts: list[SentPart] = []
        self.table.currentCellChanged.connect(lambda row, *_: self._show(row))

    def set_context(self, ctx: NodeContext) -> None:
        t = ctx.target
        totals = ctx.by_section()
        self.header.setText(
            f"Message {ctx.at} · {t.kind} {t.model} · window {t.window:,} · "
            f"{ctx.tokens:,} tokens ({ctx.tokens * 100 // max(t.available, 1)} % of the room) · "
            f"rungs: {', '.join(ctx.plan.rungs) or 'none'}\n"
            + " · ".join(f"{k} {v:,}" for k, v in totals.items() if v)
            + f" · overhead {ctx.plan.estimator.overhead:,} · {len(ctx.plan.pages)} page(s)")
        self.parts = ctx.parts()
        self.table.setRowCount(len(self.parts))
        for row, p in enumerate(self.parts):
            shown = (f"page {int(p.part.meta.get('page', 0)) + 1}: {p.part.meta.get('width')}×"
                     f"{p.part.meta.get('height')} px" if p.kind == "page" else _short(p.text))
            cells = (_item(p.section), _item(str(p.message_id)), _item(p.role), _item(p.kind),
                     _item(p.state, STATE_COLORS.get(p.state)), _item(f"{p.tokens:,}", None, True),
                     _item(shown))
            for col, cell in enumerate(cells):
                self.table.setItem(row, col, cell)
        self.pages.set_pages([pg.png for pg in ctx.plan.pages])
        records = [f"compaction {r['id']} on message {r['message_id']} ({r['kind']})"
                   for r in ctx.records]
        self.notes.setText("\n".join([*records, *(f"note: {n}" for n in ctx.notes)]))
        if self.parts:
            self.table.selectRow(0)

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self.parts):
            return
        p = self.parts[row]
        if p.kind == "page":
            self.pages.show_page(int(p.part.meta.get("page", 0)))
            self.detail.setCurrentWidget(self.pages)
        else:
            self.text.setPlainText(p.text if p.kind != "image" else
                                   f"[image: {p.part.media_type}, "
                                   f"{len(p.part.data or b''):,} bytes]")
            self.detail.setCurrentWidget(self.text)


class ContextDialog(QDialog):
    """"Context at this point": the request at one node, built off the main thread."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(1100, 800)
        self.panel = NodeContextPanel()
        QVBoxLayout(self).addWidget(self.panel)
        self.context: NodeContext | None = None

    def show_context(self, ctx: NodeContext) -> None:
        self.context = ctx
        self.panel.set_context(ctx)

    def show_error(self, text: str) -> None:
        self.panel.header.setText(f"The context could not be built: {text}")


class ContextDiffDialog(QDialog):
    """"Compare context": per message, how A and B carry it; the texts side by side, and the
    pages each side sends."""

    COLUMNS = ("Change", "Message", "Role", "In A", "Tokens A", "In B", "Tokens B", "Text")

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(1300, 860)
        self.header = QLabel("Building both contexts…")
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setWordWrap(True)
        self.table = _table(self.COLUMNS)
        self.text_a, self.text_b = _plain(), _plain()
        self.pages_a, self.pages_b = PageViewer(), PageViewer()
        sides = QSplitter(Qt.Orientation.Horizontal)
        for name, text, pages in (("A", self.text_a, self.pages_a),
                                  ("B", self.text_b, self.pages_b)):
            box = QWidget()
            col = QVBoxLayout(box)
            col.setContentsMargins(0, 0, 0, 0)
            label = QLabel(name)
            label.setObjectName(f"side_{name}")
            col.addWidget(label)
            inner = QSplitter(Qt.Orientation.Vertical)
            inner.addWidget(text)
            inner.addWidget(pages)
            col.addWidget(inner, 1)
            sides.addWidget(box)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(sides)
        split.setSizes([380, 440])
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(split, 1)
        self.rows: list[Row] = []
        self.diff: ContextDiff | None = None
        self.table.currentCellChanged.connect(lambda row, *_: self._show(row))

    def show_diff(self, d: ContextDiff) -> None:
        self.diff = d
        totals = d.totals()
        lines = [f"A: message {d.a.at}, {d.a.tokens:,} tokens, {len(d.a.plan.pages)} page(s) · "
                 f"B: message {d.b.at}, {d.b.tokens:,} tokens, {len(d.b.plan.pages)} page(s)",
                 " · ".join(f"{k}: {t['messages']} message(s), {t['tokens_a']:,} → "
                            f"{t['tokens_b']:,} tokens" for k, t in totals.items()
                            if k != "same") or "the two contexts carry the same messages alike",
                 "Paged and summarized messages count their source text's tokens; the pages "
                 f"themselves cost A {_page_tokens(d.a):,} and B {_page_tokens(d.b):,} tokens."]
        self.header.setText("\n".join(lines))
        self.rows = d.changed()
        self.table.setRowCount(len(self.rows))
        for row, r in enumerate(self.rows):
            cells = (_item(r.change, CHANGE_COLORS.get(r.change)), _item(str(r.message_id)),
                     _item(r.role), _item(r.a.state, STATE_COLORS.get(r.a.state)),
                     _item(f"{r.a.tokens:,}", None, True),
                     _item(r.b.state, STATE_COLORS.get(r.b.state)),
                     _item(f"{r.b.tokens:,}", None, True), _item(_short(r.b.text or r.a.text)))
            for col, cell in enumerate(cells):
                self.table.setItem(row, col, cell)
        self.pages_a.set_pages([p.png for p in d.a.plan.pages])
        self.pages_b.set_pages([p.png for p in d.b.plan.pages])
        if self.rows:
            self.table.selectRow(0)

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self.rows):
            return
        r = self.rows[row]
        for box, side in ((self.text_a, r.a), (self.text_b, r.b)):
            head = f"[{side.state}, {side.tokens:,} tokens]\n\n" if side.state != "absent" else ""
            box.setPlainText(head + (side.text if side.state != "absent" else "(not sent)"))

    def show_error(self, text: str) -> None:
        self.header.setText(f"The contexts could not be built: {text}")

