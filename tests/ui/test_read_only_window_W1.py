"""The window on a database it may not write: it opens, says so in its title and status bar,
and a change is refused in one line, not by an error dialog later (W1)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.store import Store, read_only
from explorer.ui.app import open_store, open_window
from explorer.ui.read_only import NOTE_NAME
from explorer.ui.window.main_window import MainWindow


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def locked_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo, closed cleanly, in a folder the store is told it may not write (as root,
    permissions would not stop the test; the read-only connection does)."""
    folder = tmp_path / "archive"
    folder.mkdir()
    db = folder / "explorer.db"
    with Store(db) as store:
        load_demo(store)
    real = read_only.writable
    monkeypatch.setattr(read_only, "writable", lambda p: p != folder and real(p))
    return db


@pytest.fixture
def window(qtbot: QtBot, locked_db: Path, tmp_path: Path) -> Iterator[MainWindow]:
    store = open_store(locked_db)
    w = open_window(store, QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        w.show()
        w.open_conversation(1)
    yield w
    w.close()
    store.close()


def test_W1_the_window_on_a_read_only_database_says_so_and_refuses_a_change_in_one_line(
    window: MainWindow, locked_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _digest(locked_db)
    assert window.windowTitle() == "Conversation Explorer — read-only"
    note = window.findChild(QLabel, NOTE_NAME)
    assert isinstance(note, QLabel) and note.isVisible()
    assert note.text() == (f"Read-only: its folder {locked_db.parent} is not writable; "
                           "changes are refused")
    failures: list[str] = []
    monkeypatch.setattr(window.questions, "fail", failures.append)  # no modal box in tests
    window.tend.star(11)
    assert window.ops.settle()
    assert failures == [f"the database {locked_db} is read-only (its folder "
                        f"{locked_db.parent} is not writable): nothing was changed"]
    assert not window.error_bar.isVisible()  # a refusal, not a failure
    assert sorted(p.name for p in locked_db.parent.iterdir()) == ["explorer.db"]
    assert _digest(locked_db) == before


def test_W1_a_writable_database_opens_without_the_mark(
    qtbot: QtBot, tmp_path: Path
) -> None:
    store = open_store(tmp_path / "fine.db")
    try:
        w = open_window(store, QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
        qtbot.addWidget(w)
        assert w.windowTitle() == "Conversation Explorer"
        assert w.findChild(QLabel, NOTE_NAME) is None
        w.close()
    finally:
        store.close()
