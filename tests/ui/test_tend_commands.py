"""The tending commands are written once (T6–T8): the menus, the graph's chips and the
command bar run the same ``TendCommands``, which refresh the views and hand back the change."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.app.ops.slash import parse
from explorer.app.tending.tree_actions import Change
from explorer.store import Store, StoreError
from explorer.ui.background.op_runner import OpRunner
from explorer.ui.tending.commands import TendCommands
from explorer.ui.window.main_window import MainWindow


class Ran:
    """What the commands told, on a runner of their own; ``wait`` settles and returns it."""

    def __init__(self, store: Store) -> None:
        self.refreshed: list[object] = []
        self.ops = OpRunner(None, self.refreshed.append)
        self.commands = TendCommands(store, self.ops)
        self.changes: list[Change] = []
        self.errors: list[BaseException] = []

    def args(self) -> tuple[object, object]:
        return self.changes.append, self.errors.append

    def wait(self) -> Change:
        assert self.ops.settle()
        assert not self.errors, self.errors
        return self.changes[-1]


def test_T6_T7_T8_each_command_refreshes_once_and_tells_its_change(
        qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        conv = load_demo(store)
        ran = Ran(store)
        commands = ran.commands
        try:
            assert commands.undo_text(conv) == "Undo" and commands.redo_text(conv) == "Redo"
            commands.archive(8, *ran.args())
            assert "archived" in ran.wait().summary and ran.refreshed == [None]
            assert 8 in store.marks(conv).archived
            assert commands.undo_text(conv) == "Undo archive"
            commands.undo(conv, *ran.args())
            ran.wait()
            assert 8 not in store.marks(conv).archived
            assert commands.redo_text(conv) == "Redo archive"
            commands.redo(conv, *ran.args())
            commands.unfold(conv, [7], *ran.args())  # the branch point 8 hangs from
            ran.wait()
            assert 8 not in store.marks(conv).archived
            commands.label(8, "chardet", *ran.args())
            commands.note(8, "slower", *ran.args())
            ran.wait()
            marks = store.marks(conv)
            assert marks.labels[8] == "chardet" and marks.notes[8] == "slower"
            commands.star(12, *ran.args())
            ran.wait()
            assert 12 in store.marks(conv).preferred
            assert len(ran.refreshed) == 7  # one per command
        finally:
            ran.ops.shutdown()


def test_T7_a_chip_restores_each_deletion_at_a_branch_point_and_merge_needs_a_tip(
        qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        conv = load_demo(store)
        ran = Ran(store)
        commands = ran.commands
        try:
            commands.delete(8, *ran.args())
            ran.wait()
            assert 8 not in store.children(7)
            commands.restore_at(conv, [7], *ran.args())
            assert ran.wait().changed["restored"][0] == 8
            assert 8 in store.children(7)
            commands.restore_at(conv, [3], *ran.args())
            assert ran.ops.settle() and "nothing deleted" in str(ran.errors.pop())
            empty = store.create_conversation("nothing yet")
            commands.merge(empty, 8, *ran.args())
            assert ran.ops.settle()
            assert isinstance(ran.errors[-1], StoreError) and "no tip" in str(ran.errors[-1])
        finally:
            ran.ops.shutdown()


def test_T6_the_menu_and_the_command_bar_tell_the_same_change(
        window: MainWindow, qtbot: QtBot) -> None:
    told: list[str] = []
    window.questions.tell = lambda _title, text: told.append(text)  # type: ignore[method-assign]
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.tend.archive(8)
        window.ops.settle()
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.tend.undo()
        window.ops.settle()
    window.graph.select_node(8)
    window.open_command_bar()
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.slash.run(parse("/archive"))
        window.ops.settle()
    assert 8 in window.store.marks(1).archived
    assert told[0] and window.command_bar.result_view.toPlainText() == (
        f"{told[0]} (Ctrl+Z undoes it)")
