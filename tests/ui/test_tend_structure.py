"""The tending and compare controllers reach the window only through their contract.

``TendActions``, ``TendRuns`` and ``CompareActions`` own their commands and state;
the window is a view they hold as a ``TendView`` / ``RunView`` (``explorer/ui/
tending/view.py``), with questions and notices through ``Asks``. These checks read
the source: no controller imports the main window, each reaches its view and its
asks only by members the contract names, and the contract stays the narrow one
listed here (widening it is a deliberate change to this test).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

UI = Path(__file__).resolve().parents[2] / "explorer" / "ui"
CONTROLLERS = {"tending/actions.py": "TendView", "tending/runs.py": "RunView",
               "compare/actions.py": "TendView"}
CONTRACT = {
    "Asks": {"tell", "fail", "ask_text", "ask_multiline", "ask_item"},
    "TendView": {"store", "conversation_id", "ops", "window", "refresh", "status"},
    "RunView": {"store", "conversation_id", "ops", "window", "refresh", "status", "tasks",
                "command_bar", "redaction", "model_job", "statusBar"},
}
HELD = {"view", "asks"}  # the names a controller keeps its contracts under


def _protocols() -> dict[str, set[str]]:
    """Each protocol's members in tending/view.py, with those of the protocols it extends."""
    tree = ast.parse((UI / "tending" / "view.py").read_text(encoding="utf-8"))
    own: dict[str, set[str]] = {}
    bases: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            own[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)} | {
                n.target.id for n in node.body
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
            bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]

    def members(name: str) -> set[str]:
        return own[name].union(*(members(b) for b in bases[name] if b in own))
    return {name: members(name) for name in own}


def _module(name: str) -> ast.Module:
    return ast.parse((UI / name).read_text(encoding="utf-8"))


def test_the_contract_is_the_narrow_one_listed() -> None:
    assert _protocols() == CONTRACT


@pytest.mark.parametrize("name", sorted(CONTROLLERS))
def test_a_controller_never_imports_the_main_window(name: str) -> None:
    imported = set()
    for node in ast.walk(_module(name)):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
    assert not {m for m in imported if m.endswith("main_window")}
    assert "MainWindow" not in (UI / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(CONTROLLERS))
def test_a_controller_holds_its_contract_not_the_window(name: str) -> None:
    inits = [n for n in ast.walk(_module(name))
             if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    assert len(inits) == 1
    annotations = {a.arg: ast.unparse(a.annotation) for a in inits[0].args.args if a.annotation}
    assert annotations.get("view") == CONTROLLERS[name]
    assert annotations.get("asks") == "Asks"


def _reaches(tree: ast.Module) -> tuple[list[tuple[str, str]], list[int]]:
    """(held name, member) for every ``self.view.x`` / ``view.x`` / ``self.asks.x``, and the
    lines where a held contract is used other than by a member (passed on, aliased)."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    reaches, loose = [], []
    for node in ast.walk(tree):
        held = None
        if isinstance(node, ast.Attribute) and node.attr in HELD and isinstance(
                node.value, ast.Name) and node.value.id == "self":
            held = node.attr
        elif isinstance(node, ast.Name) and node.id in HELD:
            held = node.id
        if held is None:
            continue
        up = parents.get(node)
        if isinstance(up, ast.Attribute) and up.value is node:
            reaches.append((held, up.attr))
        elif not (isinstance(up, ast.Assign) and isinstance(up.targets[0], ast.Attribute)
                  and up.targets[0].attr == held) and not isinstance(
                      node.ctx, ast.Store) and not isinstance(up, ast.arguments | ast.arg):
            loose.append(node.lineno)
    return reaches, loose


@pytest.mark.parametrize("name", sorted(CONTROLLERS))
def test_a_controller_reaches_the_window_only_by_its_contract(name: str) -> None:
    tree = _module(name)
    reaches, loose = _reaches(tree)
    contract = {"view": CONTRACT[CONTROLLERS[name]], "asks": CONTRACT["Asks"]}
    outside = sorted({f"{held}.{member}" for held, member in reaches
                      if member not in contract[held]})
    assert outside == [], f"{name} reaches past its contract"
    assert loose == [], f"{name} passes its view or asks on (lines {loose})"
    assert reaches, "the check found the controller's reaches"
    source = (UI / name).read_text(encoding="utf-8")
    assert "self.w." not in source and "getattr(self.view" not in source


def test_the_check_catches_a_reach_past_the_contract() -> None:
    """The checker itself: a reach into the window's graph and a view passed on are caught."""
    tree = ast.parse("class C:\n"
                     "    def __init__(self, view: TendView, asks: Asks) -> None:\n"
                     "        self.view = view\n"
                     "    def f(self) -> None:\n"
                     "        self.view.graph.fit()\n"
                     "        helper(self.view)\n")
    reaches, loose = _reaches(tree)
    assert ("view", "graph") in reaches
    assert loose == [6]


TENDING_OPERATIONS = {("tree_actions", n) for n in (
    "archive", "unarchive", "delete", "star", "label", "note", "unarchive_at")} | {
    ("undo", "undo"), ("undo", "restore_deleted"), ("redo", "redo"), ("merge", "merge")}


def test_T6_T7_T8_each_tending_operation_is_called_from_one_module_of_the_window() -> None:
    """Menus, chips and the command bar all go through ``TendCommands``: no other module of
    ``explorer/ui`` calls a tending operation of ``explorer.app`` itself."""
    callers: dict[tuple[str, str], set[str]] = {}
    for path in UI.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and (node.func.value.id, node.func.attr) in TENDING_OPERATIONS):
                key = (node.func.value.id, node.func.attr)
                callers.setdefault(key, set()).add(path.relative_to(UI).as_posix())
    assert set(callers) == TENDING_OPERATIONS  # the check sees every one of them
    assert {name for names in callers.values() for name in names} == {"tending/commands.py"}


def test_T8_branching_is_written_once_for_the_menus_and_the_compare_window() -> None:
    """Branch here, the transcript's ◀ ▶ and compare's "Make active" all branch through
    ``BranchActions.branch_in``: no other module of the window calls the operation."""
    callers = {path.relative_to(UI).as_posix() for path in UI.rglob("*.py")
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and isinstance(node.func.value, ast.Name)
               and (node.func.value.id, node.func.attr) == ("tree_actions", "branch")}
    assert callers == {"tending/branch_actions.py"}
