"""O1: the operations are declared once, and every place offers exactly the declared set.

The window is built offscreen; its menu bar, a right-click menu and the command bar are read
back, and so is the ``convo`` parser. Each entry that is an operation carries its id, its
text and shortcut are the declaration's, and nothing declared is missing anywhere it is
declared to be."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QAction, QKeySequence
from pytestqt.qtbot import QtBot

from explorer.app.ops import OPERATIONS, op
from explorer.app.ops.slash import SPECS
from explorer.cli import main
from explorer.ui.window.main_window import MainWindow

VIEWS = {"tree", "context", "search"}  # command-bar words that show, not operate
READERS = {"list", "show", "tree", "search", "context", "compare", "history", "keys",
           "sources", "ops", "cost", "effects", "mcp"}  # convo subcommands that only read


def _menu_ops(window: MainWindow) -> dict[str, QAction]:
    found: dict[str, QAction] = {}
    for act in window.menuBar().findChildren(QAction):
        if act.property("op"):
            found[str(act.property("op"))] = act
    return found


def test_O1_the_menu_bar_offers_the_declared_entries_with_their_texts_and_shortcuts(
        window: MainWindow) -> None:
    found = _menu_ops(window)
    assert set(found) == {o.id for o in OPERATIONS if o.menu is not None}
    for op_id, act in found.items():
        spec = op(op_id)
        if op_id not in {"undo", "redo"}:  # these two name what they would undo
            assert act.text() == spec.title
        assert act.shortcut() == QKeySequence(spec.shortcut or "")


def test_O1_the_right_click_menu_offers_the_declared_entries(
        qtbot: QtBot, window: MainWindow) -> None:
    store = window.store
    off_path = next(n.id for n in store.skeleton(1)
                    if n.id not in set(store.path_ids(store.conversation(1).tip_id or 0)))
    window.show_message_menu(off_path, QPoint(10, 10))
    menu = window.last_menu
    assert menu is not None
    offered = {str(a.property("op")) for a in menu.findChildren(QAction) if a.property("op")}
    menu.close()
    expected = {o.id for o in OPERATIONS if o.context} - {"unarchive"}
    assert offered == expected  # a branch not archived offers Archive, not Unarchive


def test_O1_the_command_bar_offers_the_declared_words(window: MainWindow) -> None:
    table = set(window.slash.table)
    words = {o.slash for o in OPERATIONS if o.slash}
    assert table - VIEWS == words
    assert {s.name for s in SPECS} - VIEWS == words


def test_O1_every_operation_has_a_verb_or_says_why_and_every_verb_is_declared() -> None:
    parser = main.build_parser()
    verbs = set(next(a for a in parser._actions if a.dest == "command").choices)
    declared = {o.cli for o in OPERATIONS if o.cli}
    assert declared <= verbs
    assert verbs - declared == READERS  # every verb that changes something is declared
    for spec in OPERATIONS:
        assert spec.cli or spec.cli_absent, spec.id
        assert spec.in_window or spec.window_absent, spec.id


def test_O1_convo_ops_lists_every_operation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main.main(["ops", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [o["id"] for o in listed] == [o.id for o in OPERATIONS]
    needed = {"branch", "edit", "rerun", "regenerate", "fork", "checkpoint", "rewind",
              "archive", "unarchive", "delete", "purge", "star", "label", "note", "merge",
              "replay", "fanout", "send", "compact", "shake", "import", "export", "handoff",
              "undo", "redo"}
    assert needed <= {o["id"] for o in listed}
    for row in listed:
        assert row["cli"] or row["cli_absent"]
        assert row["window"] or row["window_absent"]
    assert main.main(["ops"]) == 0
    text = capsys.readouterr().out
    assert "fork        fork        Ctrl+Shift+K  Fork from here…" in text


def test_O1_the_window_never_waits_on_the_writer_for_fork_delete_merge_or_checkpoint(
        qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write of these operations runs on the operation runner's thread: the main
    thread never calls the writer and waits for it."""
    import threading

    from explorer.store.writer import Writer

    waits: list[str] = []
    call, bulk = Writer.call, Writer.call_bulk

    def traced(original):  # type: ignore[no-untyped-def]
        def wrapper(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
            if threading.current_thread() is threading.main_thread():
                waits.append(getattr(fn, "__name__", repr(fn)))
            return original(self, fn, *args, **kwargs)
        return wrapper

    monkeypatch.setattr(Writer, "call", traced(call))
    monkeypatch.setattr(Writer, "call_bulk", traced(bulk))
    store = window.store
    tip = store.conversation(1).tip_id or 0
    off_path = next(n.id for n in store.skeleton(1) if n.id not in set(store.path_ids(tip)))
    window.questions.ask_text = lambda *_a, **_k: "a label"  # type: ignore[method-assign]
    window.actions_.branches.checkpoint(tip)
    window.tend.merge(off_path)
    window.ops.settle()
    window.tend.delete(off_path)
    window.ops.settle()
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.actions_.branches.fork(tip)
        window.ops.settle()
    assert store.checkpoints(1).get("a label") == tip
    assert any(o.kind == "merge" for o in store.operations(1))
    assert store.tombstones(1)
    assert window.conversation_id != 1 and store.conversation(window.conversation_id or 0)
    assert waits == []


def test_O1_every_declared_entry_runs_the_handler_its_controller_gives(
        window: MainWindow) -> None:
    """Adding an operation is a declaration and a handler: the menus are built from the
    declarations, so an entry without a handler cannot be made."""
    assert set(window.menus.declared) == {o.id for o in OPERATIONS if o.menu is not None}
    handlers = window.op_handlers()
    assert {o.id for o in OPERATIONS if o.context} <= set(handlers)
    on_message = window.menus.on_message
    assert on_message <= set(handlers)
    assert on_message.isdisjoint(window.menus.bar_handlers())
    assert window.menus.declared["archive"].parent().title() == "Tend branch"


REFUSED = [("checkpoint", 3, ["checkpoint", "1", "x", "--at", "3"]),
           ("edit", 3, ["edit", "1", "3", "--text", "x"]),
           ("archive", 21, ["archive", "21"]),
           ("delete", 21, ["delete", "21"]),
           ("star", 2, ["star", "2"])]


@pytest.mark.parametrize(("op_id", "mid", "argv"), REFUSED, ids=[r[0] for r in REFUSED])
def test_O1_a_refusal_is_the_same_sentence_in_the_right_click_menu_and_convo(
        qtbot: QtBot, window: MainWindow, capsys: pytest.CaptureFixture[str], op_id: str,
        mid: int, argv: list[str]) -> None:
    window.show_message_menu(mid, QPoint(10, 10))
    menu = window.last_menu
    assert menu is not None
    entry = menu.action(op_id)
    menu.close()
    assert not entry.isEnabled()
    db = window.store.db_path
    before = window.store.operations(1, 50)
    assert main.main(["--db", str(db), *argv]) == 1
    said = capsys.readouterr().err.strip()
    assert said == f"convo: error: {entry.toolTip()}"
    assert f"at message {mid}: " in said and entry.text().startswith(op(op_id).title)
    assert window.store.operations(1, 50) == before  # nothing was written


def test_O1_the_menu_bar_disables_what_the_selection_does_not_allow_and_a_shortcut_says_why(
        qtbot: QtBot, window: MainWindow) -> None:
    window.reveal(21)  # on the active path: archive and delete are refused there
    assert window.selected_message() == 21
    conversation = next(a.menu() for a in window.menuBar().actions()
                        if a.text() == "&Conversation")
    conversation.aboutToShow.emit()
    archive, branch = window.menus.declared["archive"], window.menus.declared["fork"]
    assert not archive.isEnabled() and branch.isEnabled()
    root = window.graph.node_root(21)  # a turn node's archive takes the whole turn
    assert archive.toolTip().startswith(f"Archive branch is not possible at message {root}: "
                                        "on the active path")
    conversation.aboutToHide.emit()
    assert archive.isEnabled()  # the shortcut stays live and asks again when pressed
    archive.trigger()
    assert window.statusBar().currentMessage() == archive.toolTip()
    assert not window.store.operations(1, 50)
