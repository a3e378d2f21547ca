"""The window on a database it may not write says so before anything is tried (W1).

The store opens such a file read-only and refuses every write with its one line (which the
operations tell where they were asked); this marks the window itself, so a person knows
before choosing an action why a change will not be made.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMainWindow

from explorer.store import Store
from explorer.store.read_only import refusal

TITLE_MARK = " — read-only"
NOTE_NAME = "readOnlyNote"


def mark_read_only(window: QMainWindow, store: Store) -> QLabel | None:
    """On a read-only store: " — read-only" after the window's title, and a note in its
    status bar saying why (the whole refusal in its tooltip). The note, or None."""
    reason = store.read_only
    if reason is None:
        return None
    if not window.windowTitle().endswith(TITLE_MARK):
        window.setWindowTitle(window.windowTitle() + TITLE_MARK)
    note = QLabel(f"Read-only: {reason}; changes are refused")
    note.setObjectName(NOTE_NAME)
    note.setTextFormat(Qt.TextFormat.PlainText)  # a folder's name is not markup
    note.setToolTip(refusal(store.db_path, reason))
    window.statusBar().insertPermanentWidget(0, note)
    return note
