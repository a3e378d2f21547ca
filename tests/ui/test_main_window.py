"""The main window opens on a database and shows the bundled demo on first start."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.ui.app import open_store, run_app
from explorer.ui.main_window import MainWindow


def test_first_start_loads_the_demo_and_shows_its_tree(qtbot: QtBot, tmp_path: Path) -> None:
    store = open_store(tmp_path / "fresh.db")
    try:
        window = MainWindow(store)
        qtbot.addWidget(window)
        window.show()
        titles = [window.conversation_list.item(i).text()
                  for i in range(window.conversation_list.count())]
        assert any("Nightly orders import" in t for t in titles)
        window.select_conversation(min(c.id for c in store.conversations()))
        assert "[diagnosed]" in window.tree_view.toPlainText()
        assert window.current_conversation() is not None
    finally:
        store.close()


def test_an_existing_database_is_not_given_the_demo(qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "mine.db") as s:
        s.create_conversation("my own")
    store = open_store(tmp_path / "mine.db")
    try:
        assert [c.title for c in store.conversations()] == ["my own"]
        window = MainWindow(store)
        qtbot.addWidget(window)
        item = window.conversation_list.item(0)
        assert item.data(Qt.ItemDataRole.UserRole) == store.conversations()[0].id
    finally:
        store.close()


def test_screenshot_option_writes_a_png_of_the_window(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    assert run_app(tmp_path / "s.db", screenshot=str(shot)) == 0
    assert shot.read_bytes().startswith(b"\x89PNG")
