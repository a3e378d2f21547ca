"""W1 in the window: a file dialog listing the database's folder while another ``convo``
reads and writes the same file leaves SQLite's locks whole, and every write the window then
makes is on disk; the window's read connections stay bounded however long it is used."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.ui import file_dialogs
from explorer.ui.file_dialogs import HideDatabases, SafeFileDialog
from explorer.ui.window.main_window import MainWindow

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


def _answers(store: object, conv: int) -> list[int]:
    from explorer.store import Store

    assert isinstance(store, Store)
    return [n.id for n in store.skeleton(conv)
            if n.role == "assistant" and len(store.siblings(n.id)) > 1]


def test_W1_a_long_session_keeps_the_descriptors_on_the_database_bounded(
        qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    """Open, scroll, switch, compare, preview, tend, import, forty times over: the window's
    descriptors on the database's files stay under a fixed bound, and come back down."""
    from explorer.app.tending import tree_actions
    from explorer.store.readers import IDLE_KEPT

    db = window.store.db_path
    store = window.store
    convs = [c.id for c in store.conversations()]
    answers = _answers(store, 1)
    assert answers, "the demo has a regenerated answer"
    source = tmp_path / "in"
    source.mkdir()
    counts: list[int] = []
    compared = 0
    for n in range(40):
        conv = convs[n % len(convs)]
        with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
            window.open_conversation(conv)
        bar = window.transcript.verticalScrollBar()
        bar.setValue(bar.maximum() * (n % 3) // 2)  # top, middle, end: rows read as they show
        qtbot.wait(20)
        if conv == 1 and n % 3 == 1:  # the regenerated answer is in the demo's first
            window.compares.compare(answers[0])
            compare = window.compares.window
            assert compare is not None
            qtbot.wait(50)
            compare.close()
            compared += 1
            window.actions_.dialogs.compaction_preview()
            preview = window.actions_.dialogs.preview
            assert preview is not None
            qtbot.waitUntil(lambda p=preview: not p.busy, timeout=10_000)
            window.actions_.dialogs.close_preview()
        if n % 8 == 0:
            one = source / f"n{n}.jsonl"
            one.write_text(json.dumps({
                "type": "user", "uuid": f"u{n}", "parentUuid": None, "sessionId": f"s{n}",
                "timestamp": "2026-01-01T00:00:00Z",
                "message": {"role": "user", "content": f"hi {n}"}}) + "\n", encoding="utf-8")
            window.actions_.dialogs.start_import([one])
            dialog = window.actions_.dialogs.importing
            qtbot.waitUntil(lambda d=dialog: not d.is_running(), timeout=20_000)
            dialog.close()
        if n % 4 == 0:
            tree_actions.label(store, answers[-1], f"round {n}")  # a tending write
        counts.append(len(database_descriptors(db)))
    window.tasks.wait(10_000)
    qtbot.wait(200)
    per_connection = 3  # the database, its -wal and its -shm
    assert max(counts) <= per_connection * 16, counts
    assert compared >= 5
    assert not [d for d in database_descriptors(db) if d.endswith("(deleted)")]
    settled = store.reader_count()
    assert settled <= IDLE_KEPT + 2, settled
    assert len(store.conversations()) == len(convs) + 5  # every import was written
