"""The pieces of the compare window: escaped HTML for a cell, a column's header.

Cells are untrusted text, so the HTML is built here from escaped words and a
few fixed tags (no links, no images, nothing that could name a resource).
Changed words get a background from the palette and words the first column
loses are struck through, so a difference reads without a legend.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from html import escape

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout

from explorer.app.compare import Cell, Column, Span

ROLE_ACCENTS = {"user": "#3b82f6", "assistant": "#10a37f", "system": "#8b8f98", "tool": "#e0912b"}


@dataclass(frozen=True)
class DiffColors:
    changed: str
    deleted: str
    muted: str

    @classmethod
    def from_palette(cls, pal: QPalette) -> DiffColors:
        """A light tint of the selection colour: visible in both themes, text stays legible."""
        base = pal.color(QPalette.ColorRole.Base)
        mark = pal.color(QPalette.ColorRole.Highlight)
        text = pal.color(QPalette.ColorRole.Text)
        return cls(changed=_mix(mark, base, 0.35).name(), deleted=_mix(text, base, 0.55).name(),
                   muted=_mix(text, base, 0.6).name())


def _mix(a: QColor, b: QColor, share: float) -> QColor:
    """``share`` of ``a`` over ``b``."""
    def chan(x: int, y: int) -> int:
        return round(x * share + y * (1 - share))
    return QColor(chan(a.red(), b.red()), chan(a.green(), b.green()), chan(a.blue(), b.blue()))


def span_html(span: Span, colors: DiffColors) -> str:
    """One span; the white space after a marked run stays unmarked so only words are lit."""
    core = span.text.rstrip()
    tail = escape(span.text[len(core):])
    if span.kind == "equal" or not core:
        return escape(span.text)
    if span.kind == "delete":
        return f'<s style="color:{colors.deleted}">{escape(core)}</s>{tail}'
    return f'<span style="background-color:{colors.changed}">{escape(core)}</span>{tail}'


def cell_html(cell: Cell, colors: DiffColors) -> str:
    if cell.empty:
        return f'<p style="color:{colors.muted}"><i>no turn here on this branch</i></p>'
    out: list[str] = []
    for m in cell.messages:
        accent = ROLE_ACCENTS["tool" if m.heading.startswith("tool") else m.role]
        out.append(f'<p style="margin-top:4px; margin-bottom:2px; color:{accent}">'
                   f"<b>{escape(m.heading)}</b></p>")
        body = "".join(span_html(s, colors) for s in m.spans)
        out.append(f'<div style="white-space:pre-wrap">{body or "&nbsp;"}</div>')
    return "".join(out)


def column_time(column: Column) -> str:
    if column.started_at is None:
        return "time not recorded"
    return datetime.fromtimestamp(column.started_at).strftime("%Y-%m-%d %H:%M")


def column_tokens(column: Column) -> str:
    if column.output_tokens is None:
        return "tokens not recorded"
    return f"{column.output_tokens:,} output tokens"


class CellLabel(QLabel):
    """A cell: selectable rich text that wraps to its column and never scrolls by itself."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setText(html)
        self.setWordWrap(True)
        self.setOpenExternalLinks(False)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setMargin(8)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)

    def sizeHint(self) -> QSize:
        """As tall as the text wrapped to the width the column gave it, so rows fit snugly."""
        hint = super().sizeHint()
        if self.width() > 0:
            return QSize(hint.width(), self.heightForWidth(self.width()))
        return hint

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.updateGeometry()


class ColumnHeader(QFrame):
    """Model, time, tokens and where the branch starts, with the column's three actions."""

    makeActive = Signal()
    fork = Signal()
    export = Signal()

    def __init__(self, index: int, column: Column, colors: DiffColors) -> None:
        super().__init__()
        self.column = column
        self.active = False
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        models = ", ".join(column.models) or "no model recorded"
        self.model_label = QLabel(f"<b>{chr(ord('A') + index)} · {escape(models)}</b>")
        self.facts_label = QLabel(f"{column_time(column)} · {column_tokens(column)}")
        self.facts_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.where_label = QLabel(column.description)
        self.where_label.setTextFormat(Qt.TextFormat.PlainText)
        self.where_label.setWordWrap(True)
        self.where_label.setStyleSheet(f"color:{colors.muted}")
        self.make_active_button = QPushButton("Make active")
        self.make_active_button.setToolTip(f"Move the tip to message {column.leaf_id}")
        self.fork_button = QPushButton("Fork…")
        self.fork_button.setToolTip("Copy this branch into a new conversation")
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Write this branch to a file")
        self.make_active_button.clicked.connect(self.makeActive)
        self.fork_button.clicked.connect(self.fork)
        self.export_button.clicked.connect(self.export)
        buttons = QHBoxLayout()
        for b in (self.make_active_button, self.fork_button, self.export_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.model_label)
        layout.addWidget(self.facts_label)
        layout.addWidget(self.where_label)
        layout.addStretch(1)
        layout.addLayout(buttons)

    def set_active(self, active: bool) -> None:
        """The active branch's button says so instead of offering a move that does nothing."""
        self.active = active
        self.make_active_button.setText("✓ Active" if active else "Make active")
        self.make_active_button.setEnabled(not active)
