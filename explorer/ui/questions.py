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

from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from explorer.ui import file_dialogs

log = logging.getLogger(__name__)
Status = Callable[[str, int], None]  # text, milliseconds shown


class Questions:
    def __init__(self, parent: QWidget, status: Status) -> None:
        self.parent = parent
        self.status = status
        self.last_error = ""

    def ask_text(self, title: str, label: str, default: str = "") -> str | None:
        text, ok = QInputDialog.getText(self.parent, title, label, text=default)
        return text if ok else None

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
