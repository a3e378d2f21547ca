"""A big file an older version wrote is upgraded with a word on screen, not in silence."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from explorer.store import Store, migrations
from explorer.store.connection import open_connection
from explorer.store.migrations import MIGRATIONS, migrate, slow_upgrade
from explorer.ui import upgrade_notice
from explorer.ui.app import open_store


def _older_file(path: Path) -> Path:
    conn = open_connection(path)
    migrate(conn, upto=len(MIGRATIONS) - 1)
    conn.close()
    return path


def _notices() -> list[QWidget]:
    return [w for w in QApplication.topLevelWidgets()
            if w.objectName() == "upgradeNotice" and w.isVisible()]


def test_only_a_big_file_that_needs_migrations_is_a_slow_upgrade(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    older = _older_file(tmp_path / "older.db")
    assert not slow_upgrade(older), "small: opened at once"
    monkeypatch.setattr(migrations, "UPGRADE_NOTICE_BYTES", 0)
    assert slow_upgrade(older)
    assert not slow_upgrade(tmp_path / "missing.db")
    with Store(tmp_path / "current.db"):
        pass
    assert not slow_upgrade(tmp_path / "current.db")
    Store(older).close()  # upgraded now
    assert not slow_upgrade(older)


def test_a_slow_upgrade_shows_a_notice_while_the_store_opens(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    older = _older_file(tmp_path / "older.db")
    monkeypatch.setattr(migrations, "UPGRADE_NOTICE_BYTES", 0)
    seen: list[list[str]] = []
    looked = threading.Event()

    def look() -> None:  # on this (the GUI) thread, while the upgrade's thread waits
        seen.append([w.objectName() for w in _notices()])
        looked.set()

    def opening() -> Store:
        assert looked.wait(30), "the GUI thread kept painting meanwhile"
        return Store(older)

    QTimer.singleShot(0, look)

    store = upgrade_notice.opened_with_notice(older, opening)
    try:
        assert seen == [["upgradeNotice"]]
        assert migrations.applied(store.reader)[-1] == MIGRATIONS[-1][0]
        assert not _notices(), "the notice goes once the store is open"
    finally:
        store.close()


def test_the_app_opens_an_older_big_file_through_the_notice(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    older = _older_file(tmp_path / "older.db")
    monkeypatch.setattr(migrations, "UPGRADE_NOTICE_BYTES", 0)
    shown: list[Path] = []
    real = upgrade_notice.upgrade_notice
    monkeypatch.setattr(upgrade_notice, "upgrade_notice",
                        lambda path: shown.append(path) or real(path))
    store = open_store(older)
    try:
        assert shown == [older] and store.has_conversations()  # the demo, on an empty file
    finally:
        store.close()
