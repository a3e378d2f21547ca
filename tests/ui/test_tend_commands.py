"""The tending commands are written once (T6–T8): the menus, the graph's chips and the
command bar run the same ``TendCommands``, which refresh the views and hand back the change."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.app.demo import load_demo
from explorer.app.slash import parse
from explorer.store import Store, StoreError
from explorer.ui.main_window import MainWindow
from explorer.ui.tend_commands import TendCommands


def test_T6_T7_T8_each_command_refreshes_once_and_returns_its_change(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        conv = load_demo(store)
        refreshed: list[str] = []
        commands = TendCommands(store, lambda: refreshed.append("views"))
        assert commands.undo_text(conv) == "Undo" and commands.redo_text(conv) == "Redo"
        assert "archived" in commands.archive(8).summary and refreshed == ["views"]
        assert 8 in store.marks(conv).archived
        assert commands.undo_text(conv) == "Undo archive"
        commands.undo(conv)
        assert 8 not in store.marks(conv).archived and commands.redo_text(conv) == "Redo archive"
        commands.redo(conv)
        commands.unfold(conv, [7])  # the branch point 8 hangs from
        assert 8 not in store.marks(conv).archived
        commands.label(8, "chardet")
        commands.note(8, "slower")
        marks = store.marks(conv)
        assert marks.labels[8] == "chardet" and marks.notes[8] == "slower"
        commands.star(12)
        assert 12 in store.marks(conv).preferred
        assert len(refreshed) == 7  # one per command


def test_T7_a_restore_per_deletion_at_a_branch_point_and_merge_needs_a_tip(
        tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        conv = load_demo(store)
        commands = TendCommands(store, lambda: None)
        commands.delete(8)
        assert 8 not in store.children(7)
        restores = commands.deleted_at(conv, [7])
        assert len(restores) == 1 and commands.deleted_at(conv, [3]) == []
        restores[0]()
        assert 8 in store.children(7)
        empty = store.create_conversation("nothing yet")
        with pytest.raises(StoreError, match="no tip"):
            commands.merge(empty, 8)


def test_T6_the_menu_and_the_command_bar_tell_the_same_change(
        window: MainWindow, qtbot: QtBot) -> None:
    told: list[str] = []
    window.questions.tell = lambda _title, text: told.append(text)  # type: ignore[method-assign]
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.tend.archive(8)
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.tend.undo()
    window.graph.select_node(8)
    window.open_command_bar()
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.slash.run(parse("/archive"))
    assert 8 in window.store.marks(1).archived
    assert told[0] and window.command_bar.result_view.toPlainText() == (
        f"{told[0]} (Ctrl+Z undoes it)")
