"""Starting the desktop app on a database, loading the demo on first start."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from explorer.app.demo import load_demo
from explorer.store import Store
from explorer.ui.main_window import MainWindow

APP_ID = "io.github.conversation_explorer.ConversationExplorer"


def make_application() -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    app.setApplicationName("Conversation Explorer")
    app.setOrganizationName("conversation-explorer")
    app.setDesktopFileName(APP_ID)
    return app


def open_store(db_path: Path) -> Store:
    """The store, with the bundled demo loaded when the database has no conversations."""
    store = Store(db_path)
    if not store.conversations():
        load_demo(store)
    return store


def run_app(db_path: Path, screenshot: str | None = None, conversation: int | None = None) -> int:
    app = make_application()
    store = open_store(db_path)
    window = MainWindow(store)
    if conversation is not None:
        window.select_conversation(conversation)
    window.resize(1280, 800)
    window.show()
    if screenshot:
        def shoot() -> None:
            window.grab().save(screenshot)
            app.quit()
        QTimer.singleShot(300, shoot)
    code = app.exec()
    window.close()
    store.close()
    return int(code)
