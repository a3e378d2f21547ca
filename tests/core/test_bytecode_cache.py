"""The app's own bytecode cache: used only when Python would otherwise cache nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from explorer.app import bytecode
from explorer.app.child_pipe import child_env


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    return tmp_path


def test_dont_write_bytecode_sends_compiled_modules_to_the_user_cache(cache_home: Path) -> None:
    used = bytecode.use_user_cache({})
    assert used == cache_home / "conversation-explorer" / "pycache"
    assert sys.pycache_prefix == str(used) and not sys.dont_write_bytecode
    assert used.is_dir()


def test_a_prefix_chosen_by_the_user_or_an_opt_out_is_left_alone(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert bytecode.use_user_cache({bytecode.OPT_OUT: "1"}) is None
    assert sys.pycache_prefix is None and sys.dont_write_bytecode
    monkeypatch.setattr(sys, "pycache_prefix", str(cache_home / "mine"))
    assert bytecode.use_user_cache({}) is None
    assert sys.pycache_prefix == str(cache_home / "mine")


def test_an_installation_that_caches_its_own_bytecode_is_left_alone(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    package = cache_home / "pkg"
    package.mkdir()
    assert bytecode.installation_caches(package)
    assert bytecode.use_user_cache({}) is None  # this checkout is writable
    assert sys.pycache_prefix is None


def test_an_unwritable_cache_folder_changes_nothing(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = cache_home / "conversation-explorer"
    blocker.write_text("a file where the folder would go")
    assert bytecode.use_user_cache({}) is None
    assert sys.pycache_prefix is None


def test_the_processes_the_app_starts_use_its_cache_too(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import's reading processes and the turn graph's builder read and write the same
    compiled modules as the process that started them, instead of compiling every module
    from source at each start."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    used = bytecode.use_user_cache({})
    assert used is not None
    env = child_env()
    assert env["PYTHONPYCACHEPREFIX"] == str(used) and "PYTHONDONTWRITEBYTECODE" not in env
    shown = subprocess.run(
        [sys.executable, "-c", "import sys, explorer.app.importing.read_worker; "
         "print(sys.pycache_prefix, sys.dont_write_bytecode)"],
        env=env, capture_output=True, text=True, check=True).stdout.split()
    assert shown == [str(used), "False"]
    assert any(used.rglob("read_worker*.pyc"))  # written by the child itself


def test_a_child_keeps_the_bytecode_settings_it_was_given(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the app's own cache, a child's environment says nothing new about bytecode;
    a prefix the user chose is kept."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    env = child_env()
    assert env["PYTHONDONTWRITEBYTECODE"] == "1" and "PYTHONPYCACHEPREFIX" not in env
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(cache_home / "mine"))
    monkeypatch.setattr(sys, "pycache_prefix", str(cache_home / "other"))
    assert child_env()["PYTHONPYCACHEPREFIX"] == str(cache_home / "mine")
