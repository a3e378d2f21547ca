"""Layers point one way: only explorer/ui imports Qt, and the core runs without it."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

EXPLORER = Path(__file__).resolve().parents[1] / "explorer"
CORE_LAYERS = ("tree", "store", "formats", "compaction", "app", "cli", "providers")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_nothing_outside_ui_imports_pyside6() -> None:
    offenders = [
        str(p.relative_to(EXPLORER)) for p in EXPLORER.rglob("*.py")
        if "ui" not in p.relative_to(EXPLORER).parts[:1]
        and any(n.split(".")[0] == "PySide6" for n in _imports(p))
    ]
    assert offenders == []


def test_tree_layer_does_no_io_and_imports_no_upper_layer() -> None:
    forbidden = {"sqlite3", "sqlite_utils", "httpx", "PySide6", "keyring"}
    upper = {f"explorer.{x}" for x in CORE_LAYERS if x != "tree"} | {"explorer.ui"}
    for p in (EXPLORER / "tree").rglob("*.py"):
        names = _imports(p)
        assert not {n.split(".")[0] for n in names} & forbidden, p
        assert not any(n.startswith(tuple(upper)) for n in names), p


def test_store_does_not_import_the_app_cli_or_ui() -> None:
    upper = ("explorer.app", "explorer.cli", "explorer.ui")
    for p in (EXPLORER / "store").rglob("*.py"):
        assert not any(n.startswith(upper) for n in _imports(p)), p


def test_every_core_module_imports_with_qt_blocked(tmp_path: Path) -> None:
    """The proof that the core needs no display, at a fraction of rerunning its tests with
    PySide6 blocked: every core module imports, and the command line loads the demo, shows
    it, exports it and draws the snapshot pages of a compaction preview."""
    db, preview = str(tmp_path / "x.db"), str(tmp_path / "pages")
    modules = sorted(
        ".".join(p.relative_to(EXPLORER.parent).with_suffix("").parts)
        for p in EXPLORER.rglob("*.py")
        if p.relative_to(EXPLORER).parts[0] != "ui"
    )
    script = (
        "import importlib, importlib.abc, sys\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] == 'PySide6': raise ImportError('blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        f"for m in {modules!r}: importlib.import_module(m.removesuffix('.__init__'))\n"
        "from explorer.cli.main import main\n"
        f"for args in (['demo'], ['show', '1'], ['export', '1', '--format', 'markdown'],\n"
        f"             ['compact', '1', '--rung', 'snapshot', '--preview', {preview!r}]):\n"
        f"    assert main(['--db', {db!r}, *args]) == 0, args\n"
        "assert 'PySide6' not in sys.modules\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=env)
    assert res.returncode == 0, res.stderr
    assert "demo conversation" in res.stdout and "UnicodeDecodeError" in res.stdout
    assert (tmp_path / "pages" / "page-001.png").read_bytes().startswith(b"\x89PNG")


# Every edge of the layer table in ARCHITECTURE.md: a layer imports only the layers below it.
LAYER_ORDER = ("tree", "store", "compaction", "formats", "providers", "app", "cli", "ui")
# The one documented exception (README, "Architecture notes"): the `convo` entry point opens
# the window and the installed-bundle smoke test, importing the ui inside those functions only.
LAZY_UPWARD = {("explorer/cli/main.py", "ui")}


def _explorer_imports(path: Path) -> list[tuple[str, bool]]:
    """(the explorer layer imported, whether at module level) for every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set(map(id, tree.body))
    out: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
        for name in names:
            parts = name.split(".")
            if parts[0] == "explorer" and len(parts) > 1 and parts[1] in LAYER_ORDER:
                out.append((parts[1], id(node) in top))
    return out


def test_every_layer_imports_only_the_layers_below_it() -> None:
    offenders = []
    for p in EXPLORER.rglob("*.py"):
        rel = p.relative_to(EXPLORER)
        if rel.parts[0] not in LAYER_ORDER:
            continue
        own = LAYER_ORDER.index(rel.parts[0])
        for layer, top_level in _explorer_imports(p):
            upward = LAYER_ORDER.index(layer) > own
            where = str(Path("explorer") / rel)
            if upward and (top_level or (where, layer) not in LAZY_UPWARD):
                offenders.append(f"{where} imports explorer.{layer}")
    assert offenders == []


def test_the_layer_check_sees_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from explorer.app import compacting\nimport explorer.ui.app\n")
    assert _explorer_imports(bad) == [("app", True), ("ui", True)]
    assert LAYER_ORDER.index("app") > LAYER_ORDER.index("store")
