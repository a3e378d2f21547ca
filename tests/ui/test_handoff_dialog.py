"""Right-click → Continue in …: a new session in the agent's folder, the command to resume it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.store import Store
from explorer.ui.sharing.handoff_dialog import HandoffDialog
from explorer.ui.window.context_menu import MessageMenu
from explorer.ui.window.main_window import MainWindow


@pytest.fixture
def demo_menu(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
              ) -> Iterator[tuple[MainWindow, MessageMenu, Path]]:
    """The demo open in a window under a fresh home, and the right-click menu of its tip."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    store = Store(tmp_path / "w.db")
    cid = load_demo(store)
    w = MainWindow(store, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    try:
        w.open_conversation(cid)
        tip = store.conversation(cid).tip_id
        assert tip is not None
        menu = MessageMenu(w.actions_.availability(tip), w.actions_.menu_handlers(), w)
        yield w, menu, home
        menu.deleteLater()
    finally:
        w.close()
        store.close()


def _written(qtbot: QtBot, w: MainWindow, menu: MessageMenu, agent: str) -> HandoffDialog:
    action = menu.findChild(QAction, f"continue_in_{agent}")
    assert action is not None
    action.trigger()
    qtbot.waitUntil(lambda: w.findChild(HandoffDialog) is not None, timeout=10_000)
    dialog = w.findChild(HandoffDialog)
    assert dialog is not None
    return dialog


def test_continue_in_codex_writes_a_session_and_offers_the_command(
    qtbot: QtBot, demo_menu: tuple[MainWindow, MessageMenu, Path]
) -> None:
    w, menu, home = demo_menu
    dialog = _written(qtbot, w, menu, "codex")
    written = dialog.written
    assert written.path.is_file() and written.path.is_relative_to(home / ".codex/sessions")
    assert written.differences == []
    dialog.copy_button.click()
    clipboard = QGuiApplication.clipboard()
    assert clipboard is not None and clipboard.text() == written.command
    assert written.command.endswith(f"codex resume {written.session_id}")
    shown = [label.text() for label in dialog.findChildren(QLabel)]
    assert any("resumed once by id" in text for text in shown)  # Codex's picker
    dialog.close()


@pytest.mark.parametrize(("agent", "folder", "command"), [
    ("gemini-cli", ".gemini/tmp", "gemini --resume"),
    ("opencode", ".local/share/opencode/handoff", "opencode import"),
])
def test_H1_continue_in_offers_every_agent_a_branch_can_be_handed_to(
    agent: str, folder: str, command: str,
    qtbot: QtBot, demo_menu: tuple[MainWindow, MessageMenu, Path]
) -> None:
    w, menu, home = demo_menu
    names = [a.text() for a in menu.findChildren(QAction)
             if a.objectName().startswith("continue_in_")]
    assert names == ["Claude Code", "pi", "Codex CLI", "Gemini CLI", "OpenCode"]
    dialog = _written(qtbot, w, menu, agent)
    written = dialog.written
    assert written.path.is_file() and written.path.is_relative_to(home / folder)
    assert written.differences == [] and command in written.command
    name = "Gemini CLI" if agent == "gemini-cli" else "OpenCode"
    assert dialog.windowTitle() == f"Continue in {name}"
    dialog.close()
