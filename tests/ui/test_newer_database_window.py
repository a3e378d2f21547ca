"""The window on a database a newer version upgraded: it says so in one line (and a dialog
for a person) and changes nothing in the file."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import newer_database

REPO = Path(__file__).resolve().parents[2]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _convo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "explorer.cli.main", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})


def test_the_window_on_a_newer_database_says_so_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "newer.db"
    newer_database(db)
    before = _digest(db)
    shot = tmp_path / "shot.png"
    done = _convo("--db", str(db), "--screenshot", str(shot))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "0099_future" in done.stderr and not shot.exists()
    assert _digest(db) == before
