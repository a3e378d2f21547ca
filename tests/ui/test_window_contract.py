"""The controllers see the window only through its contract (:class:`WindowView`).

Each right-click action, menu entry and command has one home in a controller; the
window is a view. These checks read the controllers' sources: they never import
the main window, never keep it as ``self.w``, and use of the view they hold only
what the protocol declares. The behaviour tests below drive the dialogs the
controllers now own through the real window.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.ui.window.main_window import MainWindow

UI = Path(__file__).resolve().parents[2] / "explorer" / "ui"
CONTROLLERS = ("window/actions", "tending/branch_actions", "window/dialogs", "importing/follow",
               "preview/context_actions", "window/slash_dispatch", "window/branch_state")


def protocol_members() -> set[str]:
    tree = ast.parse((UI / "window" / "view.py").read_text(encoding="utf-8"))
    [view] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "WindowView"]
    return {n.name for n in view.body if isinstance(n, ast.FunctionDef)}


def parsed(name: str) -> ast.Module:
    return ast.parse((UI / f"{name}.py").read_text(encoding="utf-8"))


def is_view(node: ast.expr) -> bool:
    """``view`` or ``self.view``: the window as a controller holds it."""
    if isinstance(node, ast.Name):
        return node.id == "view"
    return (isinstance(node, ast.Attribute) and node.attr == "view"
            and isinstance(node.value, ast.Name) and node.value.id == "self")


@pytest.mark.parametrize("name", CONTROLLERS)
def test_a_controller_never_imports_the_main_window(name: str) -> None:
    imported = set()
    for node in ast.walk(parsed(name)):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert not {m for m in imported if m.endswith("main_window")}, name


def reaches(source: ast.Module) -> tuple[set[tuple[str, int]], list[int], list[int]]:
    """What a controller uses of its view: (member, line) for each ``view.x``; the lines
    that keep the window as ``self.w``; the lines that alias the view under another name
    (``w = self.view``), which would hide its uses from this check."""
    used, kept_window, aliased = set(), [], []
    for node in ast.walk(source):
        if isinstance(node, ast.Attribute) and is_view(node.value):
            used.add((node.attr, node.lineno))
        elif (isinstance(node, ast.Attribute) and node.attr == "w"
              and isinstance(node.value, ast.Name) and node.value.id == "self"):
            kept_window.append(node.lineno)
        elif isinstance(node, ast.Assign) and is_view(node.value) and not all(
                is_view(t) for t in node.targets):
            aliased.append(node.lineno)
    return used, kept_window, aliased


@pytest.mark.parametrize("name", CONTROLLERS)
def test_a_controller_holds_the_view_not_the_window(name: str) -> None:
    used, kept_window, aliased = reaches(parsed(name))
    assert kept_window == [], f"{name} keeps the window as self.w (lines {kept_window})"
    assert aliased == [], f"{name} aliases its view (lines {aliased})"
    assert used, f"{name} does not use the view it is given"
    members = protocol_members()
    beyond = sorted((attr, line) for attr, line in used if attr not in members)
    assert beyond == [], f"{name} reaches past the WindowView contract: {beyond}"


def test_the_check_catches_a_reach_past_the_contract_the_window_and_an_alias() -> None:
    source = ast.parse("class C:\n"
                       "    def __init__(self, view: WindowView) -> None:\n"
                       "        self.view = view\n"
                       "        self.w = view\n"
                       "    def f(self) -> None:\n"
                       "        self.view.graph.fit()\n"
                       "        w = self.view\n")
    used, kept_window, aliased = reaches(source)
    assert ("graph", 6) in used and "graph" not in protocol_members()
    assert kept_window == [4] and aliased == [4, 7]


def test_the_contract_is_narrow_and_the_window_provides_all_of_it(window: MainWindow) -> None:
    members = protocol_members()
    assert len(members) <= 16, "a contract as wide as the window is no contract"
    assert {"graph", "transcript", "splitter", "actions_", "statusBar"}.isdisjoint(members)
    assert [m for m in sorted(members) if not hasattr(window, m)] == []


def test_the_window_keeps_no_dialog_state_of_its_controllers(window: MainWindow) -> None:
    for name in ("preview_window", "search_dialog", "settings_window", "import_dialog"):
        assert not hasattr(window, name), name


# -- the dialogs, now owned by WindowDialogs, through the real window ----------------------------
def test_settings_opens_from_the_menu_and_is_kept_by_the_dialogs(window: MainWindow) -> None:
    window.menu_action("settings").trigger()
    window.ops.settle()
    dialog = window.actions_.dialogs.settings
    assert dialog is not None and dialog.isVisible() and dialog.parent() is window
    dialog.close()


def test_an_off_path_search_hit_opens_as_a_branch_preview(
    window: MainWindow, qtbot: QtBot
) -> None:
    store = window.store
    on_path = {m.id for m in store.path(1)}
    off = next(n.id for n in store.skeleton(1) if n.id not in on_path)
    window.menu_action("find_in_all_conversations").trigger()
    window.ops.settle()
    dialogs = window.actions_.dialogs
    assert dialogs.search_dialog is not None and dialogs.search_dialog.isVisible()
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        dialogs.search_dialog.hitChosen.emit(1, off)
    assert window.conversation_id == 1
    assert window.graph.selected_node() == off
    assert window.branch_state.previewing
    assert store.conversation(1).tip_id in on_path, "a hit does not move the tip"
    dialogs.search_dialog.close()


def test_import_from_the_menu_asks_for_files_imports_and_opens_a_conversation(
    window: MainWindow, qtbot: QtBot, corpus_dir: Path
) -> None:
    store = window.store
    before = {c.id for c in store.conversations()}
    asked: list[str] = []

    def paths(title: str) -> list[Path]:
        asked.append(title)
        return [next(corpus_dir.glob("pi/home/.pi/agent/sessions/*/*.jsonl"))]
    window.questions.ask_open_paths = paths  # type: ignore[method-assign]
    window.menu_action("import").trigger()
    window.ops.settle()
    dialog = window.actions_.dialogs.importing
    assert asked == ["Import transcripts"] and dialog is not None
    qtbot.waitUntil(lambda: not dialog.is_running(), timeout=60_000)
    qtbot.waitUntil(lambda: window.conversations.model.rowCount() == len(before) + 1,
                    timeout=10_000)
    [new] = {c.id for c in store.conversations()} - before
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        dialog.conversationChosen.emit(new)
    assert window.conversation_id == new
    dialog.close()


def test_import_cancelled_in_the_file_chooser_starts_nothing(window: MainWindow) -> None:
    window.questions.ask_open_paths = lambda title: []  # type: ignore[method-assign]
    window.menu_action("import").trigger()
    window.ops.settle()
    assert window.actions_.dialogs.importing is None


def test_the_preview_opens_once_and_closes_with_its_workers(
    window: MainWindow, qtbot: QtBot
) -> None:
    window.menu_action("compaction_preview").trigger()
    window.ops.settle()
    dialogs = window.actions_.dialogs
    first = dialogs.preview
    assert first is not None and first.isVisible()
    window.menu_action("compaction_preview").trigger()
    window.ops.settle()
    assert dialogs.preview is not first and not first.isVisible(), "one preview at a time"
    dialogs.close_preview()
    assert dialogs.preview is None


# -- the menu bar runs the same branch actions as the right-click menu -------------------------
def test_the_menu_bar_branches_and_rewinds_through_the_branch_actions(window: MainWindow) -> None:
    store = window.store
    on_path = {m.id for m in store.path(1)}
    off = next(n.id for n in store.skeleton(1) if n.id not in on_path)
    window.graph.select_node(off)
    window.menu_action("branch_here").trigger()
    window.ops.settle()
    assert store.conversation(1).tip_id == off
    offered: list[list[str]] = []

    def choose(title: str, label: str, items: list[str]) -> str:
        offered.append(items)
        return "fixed"
    window.questions.ask_item = choose  # type: ignore[method-assign]
    window.menu_action("rewind_to_checkpoint").trigger()
    window.ops.settle()
    assert offered == [sorted(store.checkpoints(1))]
    assert store.conversation(1).tip_id == store.checkpoints(1)["fixed"]


def test_a_menu_bar_action_without_a_selection_says_so_and_changes_nothing(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    told: list[str] = []
    window.questions.tell = lambda _title, text: told.append(text)  # type: ignore[method-assign]
    monkeypatch.setattr(window, "selected_message", lambda: None)
    tip = window.store.conversation(1).tip_id
    window.menu_action("branch_here").trigger()
    window.ops.settle()
    assert told == ["Select a message in the tree or the transcript first"]
    assert window.store.conversation(1).tip_id == tip
