"""Layers point one way (the import-linter contracts in pyproject.toml), and the core runs
without Qt."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXPLORER = REPO / "explorer"


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package under ``root`` with the contracts in pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(Path(sys.executable).with_name("lint-imports")), "--no-cache",
                           str(REPO / "pyproject.toml")], cwd=root, capture_output=True,
                          text=True, timeout=300, env=env)


def test_the_layer_contracts_hold() -> None:
    """Every layer imports only the layers below it, only the ui imports Qt, the tree rules
    do no I/O, the window's parts never import the window, the graph and the transcript never
    import a controller, the background runners know nothing of what they run, and reading a
    conversation never reaches a model (pyproject.toml)."""
    done = lint_imports(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "8 kept, 0 broken" in done.stdout


def test_the_contracts_catch_an_upward_import_and_io_in_the_tree(tmp_path: Path) -> None:
    copy = tmp_path / "explorer"
    shutil.copytree(EXPLORER, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "store" / "upward.py").write_text("from explorer.app.context import compacting\n")
    (copy / "tree" / "reads_a_file.py").write_text("import sqlite3\n")
    (copy / "formats" / "draws.py").write_text("import PySide6.QtGui\n")
    (copy / "ui" / "graph" / "acts.py").write_text("from explorer.ui.tending import actions\n")
    (copy / "app" / "views" / "asks.py").write_text("import httpx\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    for broken in ("explorer.store.upward -> explorer.app.context.compacting",
                   "explorer.tree is not allowed to import sqlite3",
                   "explorer.formats is not allowed to import PySide6",
                   "explorer.ui.graph is not allowed to import explorer.ui.tending",
                   "explorer.app.views is not allowed to import httpx"):
        assert broken in done.stdout, done.stdout


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


def test_packages_show_the_architecture() -> None:
    """A newcomer finds a feature by browsing: ``explorer/app`` and ``explorer/ui`` keep at most
    twenty modules flat, the rest in capability packages that each say what they are for."""
    for layer in ("app", "ui"):
        root = EXPLORER / layer
        flat = [p.name for p in root.glob("*.py") if p.name != "__init__.py"]
        assert len(flat) <= 20, (layer, sorted(flat))
        for package in (p for p in root.iterdir() if (p / "__init__.py").exists()):
            doc = (package / "__init__.py").read_text(encoding="utf-8")
            assert doc.startswith('"""') and len(doc) > 40, package
