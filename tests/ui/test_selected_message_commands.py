"""Every command acts on the selected message, in the turn view too (V1, T8).

In the turn view one node stands for a whole turn, or a folded run of turns, and its id is
the last message it holds. A person who selects a message inside it (from the transcript, or
``graph.select_node``) expects /label, /note, /star, /checkpoint, the right-click menu and the
Tend menu to act on that message, not on the turn's last message or on the tip; so does one
who selects while the tree is being laid out again after the previous command.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from graph_trees import agent_session
from PySide6.QtCore import QSettings
from PySide6.QtGui import QContextMenuEvent
from pytestqt.qtbot import QtBot

from explorer.app.ops.slash import parse
from explorer.tree.turns import is_boundary
from explorer.ui.app import open_store
from explorer.ui.graph.model import F_RUN
from explorer.ui.window.main_window import MainWindow


@pytest.fixture
def session(qtbot: QtBot, tmp_path: Path) -> Iterator[tuple[MainWindow, int]]:
    """A generated agent session (turns of prompt, tool calls, results, answer; rewinds)
    open in the window's turn view."""
    store = open_store(tmp_path / "turns.db")
    cid = agent_session(store, 400, seed=3, rewind=0.08)
    w = MainWindow(store, QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(1400, 900)
    with qtbot.waitSignal(w.graph.loaded, timeout=30_000):
        w.show()
        w.open_conversation(cid)
    assert w.graph.mode == "turns"
    yield w, cid
    qtbot.waitUntil(lambda: not w.graph.is_loading, timeout=30_000)
    w.close()
    store.close()


def _inside(w: MainWindow, cid: int, *, folded: bool) -> int:
    """A turn's last message on the active path that its node does not stand for: inside a
    folded run (``folded``) or any such; a checkpoint may go there (a turn boundary), and
    a branch point above it gives /star something to prefer."""
    model = w.graph.view.model
    assert model is not None
    path = w.store.path(cid)
    parents = Counter(n.parent_id for n in w.store.skeleton(cid))
    first_point = next(k for k, m in enumerate(path) if parents[m.id] > 1)
    found = [m.id for k, m in enumerate(path)
             if k > first_point and int(model.ids[model.index[m.id]]) != m.id
             and is_boundary(path, k) and (not folded or model.flags[model.index[m.id]] & F_RUN)]
    assert found, "the generated session has turns inside its boxes"
    return found[len(found) // 2]


def _settled(w: MainWindow, qtbot: QtBot) -> None:
    qtbot.waitUntil(lambda: not w.graph.is_loading, timeout=30_000)


def _right_click(w: MainWindow, qtbot: QtBot, mid: int) -> int:
    """Right-click the node holding ``mid`` the way a person does; the menu's message."""
    _settled(w, qtbot)
    view = w.graph.view
    model = view.model
    assert model is not None
    i = model.index[mid]
    view.center_on_node(i)
    at = view.mapFromScene(model.xs[i], model.ys[i])
    view.contextMenuEvent(QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at,
                                            view.viewport().mapToGlobal(at)))
    menu = w.last_menu
    assert menu is not None
    menu.close()
    return menu.info.message_id


def _menu(w: MainWindow, qtbot: QtBot, mid: int, key: str) -> None:
    assert _right_click(w, qtbot, mid) == mid
    assert w.last_menu is not None
    act = w.last_menu.action(key)
    assert act.isEnabled(), act.text()
    act.trigger()
    w.ops.settle()  # the operation is written off the main thread


def test_V1_the_bar_acts_on_the_message_chosen_inside_a_folded_run(
    session: tuple[MainWindow, int], qtbot: QtBot
) -> None:
    w, cid = session
    target = _inside(w, cid, folded=True)
    w.graph.select_node(target)
    assert w.selected_message() == target
    w.open_command_bar()
    # One after the other, as typed: each refreshes the tree, the next comes while it loads.
    w.slash.run(parse("/label chosen"))
    w.ops.settle()
    w.slash.run(parse("/note read this"))
    w.ops.settle()
    w.slash.run(parse("/star"))
    w.ops.settle()
    assert f"path to {target} preferred" in w.command_bar.result_view.toPlainText()
    w.slash.run(parse("/checkpoint here"))
    w.ops.settle()
    assert w.command_bar.error_text() == ""
    marks = w.store.marks(cid)
    assert marks.labels == {target: "chosen"} and marks.notes == {target: "read this"}
    assert w.store.checkpoints(cid)["here"] == target
    _settled(w, qtbot)
    assert w.selected_message() == target, "the selection outlives the commands' refreshes"


def test_V1_a_message_selected_while_the_tree_loads_is_the_one_the_bar_labels(
    session: tuple[MainWindow, int], qtbot: QtBot
) -> None:
    w, cid = session
    target = _inside(w, cid, folded=False)
    tip = w.store.conversation(cid).tip_id
    assert w.selected_message() == tip
    w.graph.refresh()
    assert w.graph.is_loading  # the old tree is on screen, with the tip selected
    w.graph.select_node(target)
    assert w.selected_message() == target
    w.open_command_bar()
    w.slash.run(parse("/label not the tip"))
    w.ops.settle()
    assert w.store.marks(cid).labels == {target: "not the tip"}
    _settled(w, qtbot)
    assert w.graph.selected_node() == target


def test_V1_the_right_click_menu_on_the_selected_box_acts_on_the_chosen_message(
    session: tuple[MainWindow, int], qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    w, cid = session
    target = _inside(w, cid, folded=True)
    w.graph.select_node(target)
    answers = iter(["named", "noted", "cp"])
    monkeypatch.setattr(w.questions, "ask_text", lambda *a, **k: next(answers))
    monkeypatch.setattr(w.questions, "ask_multiline", lambda *a, **k: next(answers))
    _menu(w, qtbot, target, "label")
    _menu(w, qtbot, target, "note")
    _menu(w, qtbot, target, "star")
    _menu(w, qtbot, target, "checkpoint")
    marks = w.store.marks(cid)
    assert marks.labels == {target: "named"} and marks.notes == {target: "noted"}
    assert w.store.checkpoints(cid)["cp"] == target
    assert w.selected_message() == target
    # Another box right-clicked is selected, and its menu is for the message it stands for.
    model = w.graph.view.model
    assert model is not None
    other = int(model.ids[model.tip])
    assert model.index[other] != model.index[target]
    assert _right_click(w, qtbot, other) == other and w.selected_message() == other


def test_T8_the_tend_menu_acts_on_the_message_chosen_inside_a_turn_box(
    session: tuple[MainWindow, int], qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    w, cid = session
    target = _inside(w, cid, folded=False)
    w.graph.select_node(target)
    answers = iter(["from the menu bar", "a note", "bar-cp"])
    monkeypatch.setattr(w.questions, "ask_text", lambda *a, **k: next(answers))
    monkeypatch.setattr(w.questions, "ask_multiline", lambda *a, **k: next(answers))
    for name in ("name_branch", "note", "prefer_this_path", "set_checkpoint"):
        w.menu_action(name).trigger()
        w.ops.settle()
    marks = w.store.marks(cid)
    assert marks.labels == {target: "from the menu bar"} and marks.notes == {target: "a note"}
    assert w.store.checkpoints(cid)["bar-cp"] == target
