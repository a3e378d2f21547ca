"""Fork, checkpoint and rewind are written once: the menus and the command bar run the same
command and tell the person the same line."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.app.ops.slash import parse
from explorer.store import Store
from explorer.ui.background.op_runner import OpRunner
from explorer.ui.tending.tree_commands import TreeCommands
from explorer.ui.window.main_window import MainWindow


def test_each_command_runs_off_the_main_thread_refreshes_and_says_what_it_did(
        qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as store:
        conv = load_demo(store)
        refreshed: list[int | None] = []
        ops = OpRunner(None, refreshed.append)
        commands = TreeCommands(store, ops)
        told: list[str] = []
        threads: list[int] = []
        writer_call = store._writer.call

        def call(*args: object, **kwargs: object) -> object:
            threads.append(threading.get_ident())
            return writer_call(*args, **kwargs)  # type: ignore[arg-type]

        store._writer.call = call  # type: ignore[method-assign]
        try:
            tip = store.conversation(conv).tip_id or 0
            commands.checkpoint(conv, tip, "here", told.append, pytest.fail)
            assert ops.settle()
            assert told == [f"checkpoint 'here' set at message {tip}"]
            assert store.checkpoints(conv)["here"] == tip and refreshed == [None]
            commands.fork(conv, tip, "copy", told.append, pytest.fail)
            assert ops.settle()
            new = refreshed[-1]
            assert new is not None and new != conv
            assert told[-1].startswith(f"forked message {tip} into conversation {new}")
            assert store.conversation(new).title == "copy"
            commands.rewind(conv, "fixed", told.append, pytest.fail)
            assert ops.settle()
            assert told[-1].startswith("back at 'fixed'. ")
            assert store.conversation(conv).tip_id == store.checkpoints(conv)["fixed"]
            failed: list[BaseException] = []
            commands.rewind(conv, "no-such-label", told.append, failed.append)
            assert ops.settle() and len(failed) == 1 and len(told) == 3
        finally:
            store._writer.call = writer_call  # type: ignore[method-assign]
            ops.shutdown()
        assert threads and threading.get_ident() not in threads  # the main thread never waits


def test_the_menu_and_the_command_bar_tell_the_same_outcome(window: MainWindow) -> None:
    told: list[str] = []
    window.questions.tell = lambda _title, text: told.append(text)  # type: ignore[method-assign]
    tip = window.store.conversation(1).tip_id or 0
    window.actions_.branches.rewind("fixed")
    window.ops.settle()
    window.graph.select_node(tip)
    window.slash.run(parse("/rewind fixed"))
    window.ops.settle()
    shown = window.command_bar.result_view.toPlainText()
    assert told and told[0].startswith("back at 'fixed'. ")
    assert shown.startswith("back at 'fixed'. ")
    assert isinstance(window.actions_.commands, TreeCommands)
    assert isinstance(window.slash.commands, TreeCommands)
