"""What the window asks the person and how it tells them the outcome.

One object for every question (a label, a prompt, a file name, a choice) and every
notice (a status line, an error box), so controllers ask through it instead of
opening dialogs on the window themselves, and tests answer by replacing its
``ask_*`` methods instead of clicking through modal dialogs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QDialog, QInputDialog, QLineEdit, QMessageBox, QWidget

from explorer.ui import file_dialogs

log = logging.getLogger(__name__)
Status = Callable[[str, int], None]  # text, milliseconds shown


class Questions:
    def __init__(self, parent: QWidget, status: Status) -> None:
        self.parent = parent
        self.status = status
        self.last_error = ""

    def ask_text(self, title: str, label: str, default: str = "") -> str | None:
        dialog = text_dialog(self.parent, title, label, default)
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        return dialog.textValue() if accepted else None

    def ask_multiline(self, title: str, label: str, default: str = "") -> str | None:
        text, ok = QInputDialog.getMultiLineText(self.parent, title, label, default)
        return text if ok else None

    def ask_item(self, title: str, label: str, items: list[str]) -> str | None:
        item, ok = QInputDialog.getItem(self.parent, title, label, items, 0, False)
        return item if ok else None

    def ask_save_path(self, title: str, suggested: str, filters: str) -> Path | None:
        chosen = file_dialogs.save_path(self.parent, title, suggested, filters)
        return chosen[0] if chosen else None

    def ask_open_paths(self, title: str) -> list[Path]:
        return file_dialogs.open_paths(self.parent, title)

    def tell(self, title: str, text: str) -> None:
        """An outcome, in the status bar (it does not interrupt)."""
        self.status(text, 8000)

    def fail(self, text: str) -> None:
        """An error: in the status bar, in a box the person closes, and in the log."""
        self.last_error = text
        log.warning("told: %s", text)
        self.status(text, 10000)
        QMessageBox.warning(self.parent, "Conversation Explorer", text)


TEXT_DIALOG_WIDTHS = (420, 720)
"""A one-line question's width: room for a long default (a fork's title) up to a limit."""


def text_dialog(parent: QWidget | None, title: str, label: str, default: str) -> QInputDialog:
    """A one-line question wide enough to show its default whole (QInputDialog's own is
    ~200 px, showing only the end of a long title)."""
    dialog = QInputDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    dialog.setTextValue(default)
    dialog.setInputMode(QInputDialog.InputMode.TextInput)
    line = dialog.findChild(QLineEdit)
    low, high = TEXT_DIALOG_WIDTHS
    if line is not None:  # the dialog sizes itself to its field
        need = line.fontMetrics().horizontalAdvance(default) + 24
        line.setMinimumWidth(max(low, min(need, high)))
        line.setCursorPosition(0)  # the title's start in view; select-all still replaces it
        line.selectAll()
    return dialog
