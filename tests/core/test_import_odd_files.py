"""A folder import reads only regular files: a named pipe called ``*.jsonl`` and a link to
``/dev/zero`` are skipped and named, never read (one waited forever, the other filled the
memory), and everything else in the folder is imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                                reason="named pipes and /dev/zero are POSIX")


def test_a_pipe_and_a_device_in_a_folder_are_skipped_and_named(tmp_path: Path) -> None:
    from benchmarks.scale_data import one_session

    folder = tmp_path / "sessions"
    folder.mkdir()
    one_session(folder, 20, seed=5)
    os.mkfifo(folder / "waiting.jsonl")
    (folder / "endless.jsonl").symlink_to("/dev/zero")
    done = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db",
                           str(tmp_path / "x.db"), "import", str(folder)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "20 added" in done.stdout
    notes = done.stderr
    assert f"{folder / 'waiting.jsonl'}: a named pipe, not a file; skipped" in notes
    assert f"{folder / 'endless.jsonl'}: a device, not a file; skipped" in notes


def test_a_pipe_named_on_the_command_line_is_refused_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "named.jsonl"
    os.mkfifo(pipe)
    done = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db",
                           str(tmp_path / "x.db"), "import", str(pipe)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert f"{pipe}: a named pipe, not a file; skipped" in done.stderr


def test_a_pipe_in_an_agents_folder_is_named_by_sources_and_never_read(tmp_path: Path) -> None:
    from explorer.app.importing.agent_homes import Environment
    from explorer.app.importing.sources import find_sources

    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-work-app"
    project.mkdir(parents=True)
    os.mkfifo(project / "stuck.jsonl")
    [found] = find_sources(Environment(home, {}, "linux"), only={"claude-code"})
    assert found.units == []
    assert any("stuck.jsonl: not a regular file; skipped" in p for p in found.problems)
