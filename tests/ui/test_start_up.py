"""What the window imports before its first frame (V2: the window comes first).

The window's start pays for every module it imports, and on a person's machine for
compiling each one too when Python may not write bytecode. These tests start ``convo``
through its entry point in a fresh interpreter and read what was loaded when the
first frame was painted: menus' dialogs, the compare window, the compaction preview,
the keyring and the subcommands load when first used, not before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from explorer.app.importing.demo import load_demo
from explorer.store import Store

CHILD = Path(__file__).with_name("first_frame_child.py")

LOADED_WHEN_USED = (
    "keyring",                        # the settings dialog and model calls
    "httpx",                          # model calls
    "numpy",                          # snapshot pages
    "explorer.cli.commands",          # subcommands
    "explorer.ui.preview.window",     # the compaction preview
    "explorer.ui.preview.context_view",       # context at a message
    "explorer.app.comparing.columns",           # the compare window
    "explorer.ui.compare.window",
    "explorer.ui.settings_dialog",
    "explorer.ui.search_dialog",
    "explorer.ui.importing.sources_dialog",
    "explorer.app.sharing.handoff",           # hand a branch back to an agent
    "PIL",                            # image sizes for the estimator, snapshot pages
    "explorer.compaction.estimate",   # the context panel's figure, on its worker after
    "explorer.app.context.figure",    # the first frame
    "explorer.app.context.compacting",        # model calls, replay, fan-out, /context
    "explorer.app.calls.conversation_ops",
    "explorer.app.sharing.exporting",         # the first export or export menu
    "explorer.formats.exporters",
    "explorer.ui.importing.dialog",      # the first import (a drop or File → Import…)
    "explorer.ui.importing.worker",
    "explorer.app.importing.run",
    "explorer.formats.registry",      # importers and zips (stale unpack folders need none)
    "explorer.formats.opencode",
    "explorer.app.importing.follow",            # following a live session (View → Follow)
    "explorer.app.importing.sync",
    "explorer.app.importing.sources",
    "explorer.compaction.page_geometry",  # snapshot pages (the settings' tier check)
    "explorer.ui.screenshot",         # convo --screenshot
    "ctypes.util",                    # runs ldconfig; the heap finds mallopt without it
)


def first_frame(tmp_path: Path, *args: str, env: dict[str, str] | None = None
                ) -> dict[str, Any]:
    db = tmp_path / "start.db"
    if not db.exists():
        with Store(db) as store:
            load_demo(store)
    child_env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
                 "XDG_CACHE_HOME": str(tmp_path / "cache"),
                 "XDG_CONFIG_HOME": str(tmp_path / "config"), **(env or {})}
    res = subprocess.run([sys.executable, str(CHILD), "--db", str(db), *args],
                         capture_output=True, text=True, timeout=120, env=child_env)
    assert res.returncode == 0, res.stderr
    out: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


@pytest.mark.slow
def test_V2_the_first_frame_imports_none_of_what_menus_open_later(tmp_path: Path) -> None:
    shown = first_frame(tmp_path)
    loaded = set(shown["modules"])
    assert "explorer.ui.window.main_window" in loaded  # the window really was built
    assert [m for m in LOADED_WHEN_USED if m in loaded] == []


@pytest.mark.slow
def test_V2_convo_paints_its_first_frame_before_the_conversation_loads_start(
    tmp_path: Path,
) -> None:
    """The remembered conversation's graph, transcript and figure start reading one turn
    after the first frame, so their workers never hold the interpreter from it."""
    assert first_frame(tmp_path)["opens_after"] is True


@pytest.mark.slow
def test_V2_start_up_keeps_compiled_modules_in_the_user_cache(tmp_path: Path) -> None:
    """With PYTHONDONTWRITEBYTECODE the installation caches nothing; the app's own cache
    (in the user's cache folder) holds the window's modules after one start."""
    env = {"PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    shown = first_frame(tmp_path, env=env)
    prefix = tmp_path / "cache" / "conversation-explorer" / "pycache"
    assert shown["pycache_prefix"] == str(prefix)
    compiled = {p.name.split(".")[0] for p in prefix.rglob("*.pyc")}
    assert {"main_window", "view", "store"} <= compiled
    opted_out = first_frame(tmp_path, env={**env, "CONVO_NO_BYTECODE_CACHE": "1"})
    assert opted_out["pycache_prefix"] is None
