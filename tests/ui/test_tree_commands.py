"""Fork, checkpoint and rewind are written once: the menus and the command bar run the same
command and tell the person the same line."""

from __future__ import annotations

from pathlib import Path

from explorer.app.demo import load_demo
from explorer.app.slash import parse
from explorer.store import Store
from explorer.ui.main_window import MainWindow
from explorer.ui.tree_commands import TreeCommands


def test_each_command_refreshes_and_says_what_it_did(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as store:
        conv = load_demo(store)
        refreshed: list[int | None] = []
        commands = TreeCommands(store, refreshed.append)
        tip = store.conversation(conv).tip_id or 0
        assert commands.checkpoint(conv, tip, "here") == f"checkpoint 'here' set at message {tip}"
        assert store.checkpoints(conv)["here"] == tip and refreshed == [None]
        line = commands.fork(conv, tip, "copy")
        new = refreshed[-1]
        assert new is not None and new != conv
        assert line.startswith(f"forked message {tip} into conversation {new}")
        assert store.conversation(new).title == "copy"
        assert commands.rewind(conv, "fixed").startswith("back at 'fixed'. ")
        assert store.conversation(conv).tip_id == store.checkpoints(conv)["fixed"]


def test_the_menu_and_the_command_bar_tell_the_same_outcome(window: MainWindow) -> None:
    told: list[str] = []
    window.questions.tell = lambda _title, text: told.append(text)  # type: ignore[method-assign]
    tip = window.store.conversation(1).tip_id or 0
    window.actions_.branches.rewind("fixed")
    window.graph.select_node(tip)
    window.slash.run(parse("/rewind fixed"))
    shown = window.command_bar.result_view.toPlainText()
    assert told and told[0].startswith("back at 'fixed'. ")
    assert shown.startswith("back at 'fixed'. ")
    assert isinstance(window.actions_.commands, TreeCommands)
    assert isinstance(window.slash.commands, TreeCommands)
