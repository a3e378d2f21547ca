"""File → Find my conversations: the agents' folders in a fake home, ticked, synced."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_home import fake_home
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from explorer.app.importing.agent_homes import Environment
from explorer.store import Store
from explorer.ui.background.tasks import TaskRunner
from explorer.ui.importing.sources_dialog import SourcesDialog


@pytest.fixture
def parts(qtbot: QtBot, tmp_path: Path) -> Iterator[tuple[Store, TaskRunner]]:
    store = Store(tmp_path / "ui.db")
    tasks = TaskRunner(threads=1, name="sources-test")
    yield store, tasks
    tasks.shutdown()
    store.close()


def test_found_tools_are_listed_ticked_and_the_ticked_ones_import(
    qtbot: QtBot, tmp_path: Path, parts: tuple[Store, TaskRunner]
) -> None:
    store, tasks = parts
    env = Environment(fake_home(tmp_path / "home"))
    dialog = SourcesDialog(store, tasks, env=env)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.import_button.isEnabled(), timeout=10_000)
    rows = {dialog.table.topLevelItem(i).text(0): dialog.table.topLevelItem(i)
            for i in range(dialog.table.topLevelItemCount())}
    assert rows["codex"].text(1) == "2" and rows["oh-my-pi"].text(1) == "not found"
    assert rows["oh-my-pi"].checkState(0) == Qt.CheckState.Unchecked
    assert dialog.checked_tools() == {"claude-code", "pi", "codex", "gemini-cli", "opencode",
                                      "llm"}
    for tool in ("claude-code", "pi", "gemini-cli", "opencode", "llm"):
        rows[tool].setCheckState(0, Qt.CheckState.Unchecked)
    with qtbot.waitSignal(dialog.synced, timeout=30_000) as got:
        dialog.import_button.click()
    assert got.args[0].added_messages > 0
    assert {c.source_format for c in store.conversations()} == {"codex"}
    assert len(store.conversations()) == 2  # the two recorded Codex sessions
    assert "21 new messages in 2 conversations" in dialog.status.text()
    QApplication.processEvents()


def test_the_file_menu_opens_it(qtbot: QtBot, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtCore import QSettings

    from explorer.ui.window.main_window import MainWindow

    monkeypatch.setenv("HOME", str(fake_home(tmp_path / "home")))
    store = Store(tmp_path / "w.db")
    w = MainWindow(store, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    try:
        w.menu_action("find_my_conversations").trigger()
        dialog = w.findChild(SourcesDialog)
        assert dialog is not None and dialog.isVisible()
        qtbot.waitUntil(lambda: dialog.import_button.isEnabled(), timeout=10_000)
        assert str(tmp_path / "home") in dialog.table.topLevelItem(0).text(4)
        dialog.close()
    finally:
        w.close()
        store.close()


def test_P2_an_import_shows_its_progress_and_stops_when_asked_keeping_what_it_read(
    qtbot: QtBot, tmp_path: Path, parts: tuple[Store, TaskRunner],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
    from test_sync_batches import many_sessions

    from explorer.app.importing import read_pool, sync
    store, tasks = parts
    home = tmp_path / "home"
    many_sessions(home, 30)
    monkeypatch.setenv(read_pool.WORKERS_ENV, "0")
    dialog = SourcesDialog(store, tasks, env=Environment(home, {}))
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.import_button.isEnabled(), timeout=10_000)
    seen: list[str] = []
    done: list[int] = []
    real = sync._sync_one

    def slowly(*args: object) -> None:  # the person presses Stop after the fourth session
        real(*args)  # type: ignore[arg-type]
        done.append(1)
        if len(done) == 4:
            dialog.stopping.wait(10)
    monkeypatch.setattr(sync, "_sync_one", slowly)
    dialog.progress.valueChanged.connect(lambda _v: seen.append(dialog.progress.format()))
    with qtbot.waitSignal(dialog.synced, timeout=30_000) as got:
        dialog.import_button.click()
        assert not dialog.progress.isHidden() and not dialog.stop_button.isHidden()
        qtbot.waitUntil(lambda: len(done) >= 4 and len(seen) >= 3, timeout=10_000)
        dialog.stop_button.click()
    report = got.args[0]
    assert report.cancelled and 4 <= report.reread < 30
    assert len(store.conversations()) == report.reread  # each read session stored whole
    assert "Stopped before the end" in dialog.status.text()
    assert "of 30 sessions" in seen[0]
    assert dialog.progress.isHidden() and dialog.import_button.isEnabled()
