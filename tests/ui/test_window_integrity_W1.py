"""W1 in the window: a file dialog listing the database's folder while another ``convo``
reads and writes the same file leaves SQLite's locks whole, and every write the window then
makes is on disk; the window's read connections stay bounded however long it is used."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.ui import file_dialogs
from explorer.ui.file_dialogs import HideDatabases, SafeFileDialog
from explorer.ui.main_window import MainWindow

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(),
                                reason="reads this process's descriptors from /proc")


def database_descriptors(db: Path) -> list[str]:
    """What this process's open descriptors on the database's files point at."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(db)):
            found.append(target)
    return found


def convo(db: Path, *args: str) -> str:
    """Another ``convo`` process on the same file, as a person runs it in a terminal."""
    done = subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db", str(db), *args],
                          capture_output=True, text=True, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def listed(dialog: SafeFileDialog, folder: Path) -> list[str]:
    proxy = dialog.proxyModel()
    assert isinstance(proxy, HideDatabases)
    source = proxy.sourceModel()
    root = proxy.mapFromSource(source.index(str(folder)))  # type: ignore[attr-defined]
    return [str(proxy.index(row, 0, root).data()) for row in range(proxy.rowCount(root))]


def journal(db: Path) -> tuple[int, int]:
    return os.stat(f"{db}-wal").st_ino, os.stat(f"{db}-shm").st_ino


def test_W1_a_dialog_on_the_database_folder_keeps_every_write_while_convo_runs_beside(
        qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    db = window.store.db_path
    (tmp_path / "older.html").write_text("<p>an earlier export</p>")
    before = journal(db)
    dialog = file_dialogs.make_dialog(window, "Export", str(tmp_path / "conversation.html"),
                                      "html (*.html);;All files (*)")
    dialog.show()
    qtbot.waitUntil(lambda: "older.html" in listed(dialog, tmp_path), timeout=10_000)
    qtbot.wait(500)  # the dialog's thread has read every entry's type and icon
    names = listed(dialog, tmp_path)
    assert not {db.name, f"{db.name}-wal", f"{db.name}-shm"} & set(names), names
    for n in range(3):  # another convo reads and writes while the dialog is open
        assert "Debugging" in convo(db, "list") or convo(db, "list")
        convo(db, "label", "2", f"outside {n}")
        qtbot.wait(50)
    dialog.close()
    assert journal(db) == before, "another process deleted this window's journal"
    assert not [d for d in database_descriptors(db) if d.endswith("(deleted)")]
    conv = window.store.create_conversation("written by the window")  # after success only
    window.store.checkpoint(1, "window-mark", at=None)
    shown = convo(db, "list")
    assert "written by the window" in shown
    elsewhere = sqlite3.connect(db)
    try:
        assert elsewhere.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        labels = {r[0] for r in elsewhere.execute("SELECT label FROM checkpoints")}
        assert "window-mark" in labels
        assert elsewhere.execute("SELECT title FROM conversations WHERE id = ?",
                                 (conv,)).fetchone()[0] == "written by the window"
    finally:
        elsewhere.close()
    assert journal(db) == before


def test_W1_the_dialogs_never_list_the_databases_files(qtbot: QtBot, window: MainWindow,
                                                        tmp_path: Path) -> None:
    db = window.store.db_path
    (tmp_path / "keep.json").write_text("{}")
    dialog = file_dialogs.make_dialog(window, "Import", str(tmp_path))
    dialog.show()
    qtbot.waitUntil(lambda: "keep.json" in listed(dialog, tmp_path), timeout=10_000)
    assert db.name not in listed(dialog, tmp_path)
    assert f"{db.name}-wal" not in listed(dialog, tmp_path)
    dialog.close()


def test_W1_types_and_icons_come_from_names(qtbot: QtBot, tmp_path: Path) -> None:
    from PySide6.QtCore import QFileInfo

    icons = file_dialogs.NameOnlyIcons()
    secret = tmp_path / "x.db-shm"
    secret.write_bytes(b"\x00" * 32)
    os.chmod(secret, 0)  # reading it would fail: the type must not need it
    try:
        assert icons.type(QFileInfo(str(secret))) == "DB-SHM file"
        assert icons.type(QFileInfo(str(tmp_path))) == "Folder"
        assert not icons.icon(QFileInfo(str(secret))).isNull()
    finally:
        os.chmod(secret, 0o600)
