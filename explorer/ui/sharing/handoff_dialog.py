"""What "Continue in …" wrote: the new session's file, the command that resumes it, and
buttons to copy the command and open the folder (the agent is started by the person)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.app.sharing.handoff import Handoff, resume_hint
from explorer.app.sharing.handoff_targets import TARGETS

AGENT_NAMES = {agent: t.name for agent, t in TARGETS.items()}


class HandoffDialog(QDialog):
    def __init__(self, done: Handoff, parent: QWidget | None = None,
                 title: str | None = None) -> None:
        super().__init__(parent)
        self.written = done
        self.setWindowTitle(title or f"Continue in {AGENT_NAMES.get(done.agent, done.agent)}")
        layout = QVBoxLayout(self)
        for caption, text in (("New session file", str(done.path)),
                              ("Resume it with", done.command)):
            layout.addWidget(QLabel(caption, self))
            value = QLabel(text, self)
            value.setTextFormat(Qt.TextFormat.PlainText)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setStyleSheet("font-family: monospace")
            value.setWordWrap(True)
            layout.addWidget(value)
        hint = resume_hint(done.agent)
        remarks = [hint] if hint else []
        remarks += [f"note: {n}" for n in done.notes]
        remarks += [f"read back differently: {d}" for d in done.differences]
        if remarks:
            notes = QLabel("\n".join(remarks), self)
            notes.setTextFormat(Qt.TextFormat.PlainText)
            notes.setWordWrap(True)
            layout.addWidget(notes)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton("Copy command", self)
        self.open_button = QPushButton("Open folder", self)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.copy_button.clicked.connect(self.copy_command)
        self.open_button.clicked.connect(self.open_folder)
        layout.addWidget(buttons)
        self.resize(640, 220)

    def copy_command(self) -> None:
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(self.written.command)

    def open_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.written.path.parent)))
