"""W1 at the store: bounded read connections, the open database's files known by name and
identity, and a writer that never writes into a journal another program deleted."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from explorer.store import Store, guard
from explorer.store.readers import IDLE_KEPT
from explorer.store.writer import JournalLost
from tests.helpers import chat_turn


def _read_in_threads(store: Store, threads: int, rounds: int) -> None:
    for _ in range(rounds):
        workers = [threading.Thread(target=lambda: store.conversations()) for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(10)


def test_W1_read_connections_follow_the_threads_reading_not_the_jobs_run(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        store.conversations()  # the main thread's own
        _read_in_threads(store, threads=3, rounds=60)  # 180 short-lived reading threads
        assert store.reader_count() <= IDLE_KEPT + 1


def test_W1_threads_reading_at_once_each_have_their_own_connection(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        inside, leave = threading.Barrier(7), threading.Event()
        seen: list[int] = []

        def hold() -> None:
            seen.append(id(store.reader))
            inside.wait(10)
            leave.wait(10)

        workers = [threading.Thread(target=hold) for _ in range(6)]
        for w in workers:
            w.start()
        inside.wait(10)
        assert len(set(seen)) == 6 and store.reader_count() == 6
        leave.set()
        for w in workers:
            w.join(10)
        store.conversations()
        assert store.reader_count() <= IDLE_KEPT + 1


def test_W1_a_closed_store_closes_every_connection_it_lent(tmp_path: Path) -> None:
    store = Store(tmp_path / "x.db")
    conns: list[sqlite3.Connection] = []
    worker = threading.Thread(target=lambda: conns.append(store.reader))
    worker.start()
    worker.join(10)
    conns.append(store.reader)
    store.close()
    for conn in conns:
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")


def test_W1_the_open_database_is_known_by_every_name_of_its_files(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    with Store(db) as store:
        store.conversations()
        link = tmp_path / "link.db"
        link.symlink_to(db)
        for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), link,
                     tmp_path / "." / "x.db"):
            assert guard.database_of(path) == db.resolve(), path
        assert guard.database_of(other) is None
        assert guard.describe(Path(f"{db}-wal"), db) == "the database's -wal file"
    assert guard.database_of(db) is None  # closed: no longer guarded


def _unlink_journal(db: Path) -> None:
    """What another process does once it believes it closed the last connection."""
    for suffix in ("-wal", "-shm"):
        os.unlink(f"{db}{suffix}")


def _count_elsewhere(db: Path) -> int:
    """The number of conversations another process sees."""
    out = subprocess.run(
        [sys.executable, "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
         "print(c.execute('select count(*) from conversations').fetchone()[0])", str(db)],
        capture_output=True, text=True, check=True)
    return int(out.stdout)


def test_W1_a_write_into_a_deleted_journal_is_refused_reopened_and_said(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    with Store(db) as store:
        store.create_conversation("before")
        store.conversations()
        _unlink_journal(db)
        with pytest.raises(JournalLost, match=r"x\.db-wal was deleted by another program.*"
                                              r"this write was not made.*reopened"):
            store.create_conversation("refused")
        assert Path(f"{db}-wal").exists()  # a journal of its own again, on disk
        after = store.create_conversation("after the reopen")
        store.append_turn(after, chat_turn(1))
        titles = {c.title for c in store.conversations()}
        assert "after the reopen" in titles and "refused" not in titles
        assert _count_elsewhere(db) == len(titles)
        assert "before" not in titles  # it went with the deleted journal; nothing fakes it
        ok = store.reader.execute("PRAGMA integrity_check").fetchone()[0]
        assert ok == "ok"


def test_W1_closing_after_a_lost_journal_copies_nothing_of_it_in(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    store = Store(db)
    store.create_conversation("kept by the checkpoint")
    side = sqlite3.connect(db)  # SQLite's own second connection: the locks stay whole
    side.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    side.close()
    store.create_conversation("only in the journal")
    _unlink_journal(db)
    store.close()
    conn = sqlite3.connect(db)
    titles = [r[0] for r in conn.execute("SELECT title FROM conversations")]
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert titles == ["kept by the checkpoint"]
