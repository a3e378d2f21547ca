"""W1: an import never opens the database this program has open, even when it is in the
folder being imported (a plain open and close of it would drop SQLite's locks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from explorer.app.importing.run import import_paths
from explorer.store import Store


def _journal(db: Path) -> tuple[int, int]:
    return os.stat(f"{db}-wal").st_ino, os.stat(f"{db}-shm").st_ino


def _open_and_close_elsewhere(db: Path) -> None:
    """What ``convo list`` in a terminal does: the last connection out deletes the journal."""
    subprocess.run([sys.executable, "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                    "c.execute('select count(*) from messages').fetchone(); c.close()", str(db)],
                   check=True)


def test_W1_importing_the_folder_that_holds_the_database_leaves_its_locks(tmp_path: Path) -> None:
    from benchmarks.scale_data import one_session

    folder = tmp_path / "work"
    folder.mkdir()
    one_session(folder, 40, seed=3)
    (folder / "other.zip").write_bytes(b"PK\x05\x06" + bytes(18))  # a mixed folder: file by file
    db = folder / "x.db"
    with Store(db) as store:
        store.conversations()
        before = _journal(db)
        report = import_paths(store, [folder])
        assert report.added_messages == 40
        assert any(s.startswith(f"{db}: it is the database this program has open")
                   for s in report.skipped_files), report.skipped_files
        _open_and_close_elsewhere(db)
        assert _journal(db) == before  # the other process saw this one still holding it
        conv = store.create_conversation("written after the import")
        store.writes_done()
    elsewhere = subprocess.run(
        [sys.executable, "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("
         "'select title from conversations where id=?', (int(sys.argv[2]),)).fetchone()[0])",
         str(db), str(conv)], capture_output=True, text=True, check=True)
    assert elsewhere.stdout.strip() == "written after the import"


def test_W1_the_open_database_itself_is_refused_as_an_import(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    with Store(db) as store:
        report = import_paths(store, [db, Path(f"{db}-wal")])
    assert report.conversations == []
    assert report.errors == [
        f"{db}: it is the database this program has open; not imported",
        f"{db}-wal: it is the database this program has open; not imported",
    ]
