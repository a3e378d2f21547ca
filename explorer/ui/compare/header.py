"""A compare column's header: what tells the branch apart, its facts, and its three actions."""

from __future__ import annotations

from datetime import datetime
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout

from explorer.app.comparing.columns import Column
from explorer.ui.compare.cells import DiffColors


def column_time(column: Column) -> str:
    if column.started_at is None:
        return "time not recorded"
    return datetime.fromtimestamp(column.started_at).strftime("%Y-%m-%d %H:%M")


def column_tokens(column: Column) -> str:
    if column.output_tokens is None:
        return "tokens not recorded"
    return f"{column.output_tokens:,} output tokens"


class ColumnHeader(QFrame):
    """The label that says what differs, model, time, tokens, where it starts, and actions."""

    makeActive = Signal()
    fork = Signal()
    export = Signal()

    def __init__(self, index: int, column: Column, colors: DiffColors, base: bool,
                 probe: str | None = None) -> None:
        super().__init__()
        self.column = column
        self.active = False
        self.base = base
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        letter = chr(ord("A") + index)
        tag = (f' <span style="background:{colors.changed}; font-weight:normal">&nbsp;base&nbsp;'
               "</span>" if base else "")
        self.title_label = QLabel(f"<b>{letter} · {escape(column.label)}</b>{tag}")
        self.title_label.setWordWrap(True)
        self.title_label.setToolTip("differences in the other columns are against this one"
                                    if base else "")
        models = ", ".join(column.models) or "no model recorded"
        self.model_label = QLabel(models)
        self.model_label.setTextFormat(Qt.TextFormat.PlainText)
        self.facts_label = QLabel(f"{column_time(column)} · {column_tokens(column)}")
        self.facts_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.cost_label = QLabel("")  # the branch's own cost, filled in off the main thread
        self.cost_label.setTextFormat(Qt.TextFormat.PlainText)
        self.cost_label.setToolTip("what this branch's own answers cost, below the shared "
                                   "ancestor (measured usage; estimated where the file has none)")
        self.cost_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # A probe's answer: its rung, tokens in and out, cost and recall score (the bench).
        self.probe_label = QLabel(probe or "")
        self.probe_label.setTextFormat(Qt.TextFormat.PlainText)
        self.probe_label.setWordWrap(True)
        self.probe_label.setStyleSheet("font-weight:bold")
        self.probe_label.setVisible(bool(probe))
        self.probe_label.setToolTip("what the probe after this rung's context cost and "
                                    "recalled (tokens measured by the provider)")
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
        for w in (self.title_label, self.probe_label, self.model_label, self.facts_label,
                  self.cost_label, self.where_label):
            layout.addWidget(w)
        layout.addStretch(1)
        layout.addLayout(buttons)

    def set_active(self, active: bool) -> None:
        """The active branch's button says so instead of offering a move that does nothing."""
        self.active = active
        self.make_active_button.setText("✓ Active" if active else "Make active")
        self.make_active_button.setEnabled(not active)
