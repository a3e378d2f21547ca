"""A database this process may not write is read, never written (W1).

Its folder (or the file) is made unwritable by standing in for the one writability check,
so these run the same as root (whom permissions do not stop): SQLite is then given a
read-only, immutable connection and cannot write whatever the permissions say.
``tests/core/cli/test_read_only_folder_W1.py`` runs the command line on a real read-only
folder.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from explorer.app.importing.demo import load_demo
from explorer.cli.main import main
from explorer.store import Store, read_only
from explorer.store.connection import open_connection
from explorer.store.migrations import migrate
from explorer.store.read_only import ReadOnlyDatabase


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _unwritable(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> None:
    real = read_only.writable
    monkeypatch.setattr(read_only, "writable", lambda p: p not in paths and real(p))


@pytest.fixture
def demo_db(tmp_path: Path) -> Path:
    folder = tmp_path / "archive"
    folder.mkdir()
    db = folder / "explorer.db"
    with Store(db) as store:
        load_demo(store)
    assert sorted(p.name for p in folder.iterdir()) == ["explorer.db"]  # closed cleanly
    return db


def test_W1_a_database_in_a_read_only_folder_is_read_and_every_write_refused(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _unwritable(monkeypatch, demo_db.parent)
    before = _digest(demo_db)
    with Store(demo_db) as store:
        assert store.read_only == f"its folder {demo_db.parent} is not writable"
        convs = store.conversations()
        assert len(convs) == 2
        assert store.path(1)[-1].id == store.conversation(1).tip_id  # the boundary: not kept
        assert store.search("UnicodeDecodeError")
        store.writes_done()
        line = (f"the database {demo_db} is read-only (its folder {demo_db.parent} is not "
                "writable): nothing was changed")
        with pytest.raises(ReadOnlyDatabase) as refused:
            store.checkpoint(1, "mine")
        assert str(refused.value) == line
        with pytest.raises(ReadOnlyDatabase, match="is read-only"):
            store.rename(1, "another title")
        with pytest.raises(ReadOnlyDatabase, match="is read-only"):
            store.require_writable()
    assert sorted(p.name for p in demo_db.parent.iterdir()) == ["explorer.db"]
    assert _digest(demo_db) == before


def test_W1_a_read_only_file_in_a_writable_folder_is_read_and_writes_refused(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _unwritable(monkeypatch, demo_db)
    before = _digest(demo_db)
    with Store(demo_db) as store:
        assert store.read_only == "the file is not writable"
        assert [c.id for c in store.conversations()] == [2, 1]
        with pytest.raises(ReadOnlyDatabase, match=r"\(the file is not writable\)"):
            store.branch(1, 11)
    assert _digest(demo_db) == before


def test_W1_no_migration_runs_on_a_read_only_database_that_needs_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "old" / "explorer.db"
    db.parent.mkdir()
    conn = open_connection(db)
    migrate(conn, upto=12)
    conn.close()
    before = _digest(db)
    _unwritable(monkeypatch, db.parent)
    with pytest.raises(ReadOnlyDatabase, match="written by an older version: it needs an "
                                               "upgrade this version cannot write here"):
        Store(db)
    assert _digest(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["explorer.db"]


def test_W1_a_new_database_in_a_read_only_folder_is_refused_before_sqlite_meets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _unwritable(monkeypatch, tmp_path)
    with pytest.raises(ReadOnlyDatabase, match=f"cannot create the database {tmp_path}"):
        Store(tmp_path / "new.db")
    assert list(tmp_path.iterdir()) == []


def test_W1_the_command_line_reads_a_read_only_database_and_refuses_a_write_in_one_line(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _unwritable(monkeypatch, demo_db.parent)
    before = _digest(demo_db)
    assert main(["--db", str(demo_db), "list"]) == 0
    assert "Nightly orders import crashes" in capsys.readouterr().out
    assert main(["--db", str(demo_db), "show", "1"]) == 0
    assert "UnicodeDecodeError" in capsys.readouterr().out
    out = demo_db.parent.parent / "branch.md"
    assert main(["--db", str(demo_db), "export", "1", "-o", str(out)]) == 0
    assert out.is_file()
    capsys.readouterr()
    for write in (["checkpoint", "1", "mine"], ["import", str(out)], ["star", "11"]):
        assert main(["--db", str(demo_db), *write]) == 1, write
        err = capsys.readouterr().err
        assert err == (f"convo: error: the database {demo_db} is read-only (its folder "
                       f"{demo_db.parent} is not writable): nothing was changed\n"), write
    assert sorted(p.name for p in demo_db.parent.iterdir()) == ["explorer.db"]
    assert _digest(demo_db) == before


def test_W1_a_read_only_connection_cannot_write_even_where_permissions_would_let_it(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal is not only the store's: SQLite itself refuses the connection's writes."""
    _unwritable(monkeypatch, demo_db.parent)
    with Store(demo_db) as store, pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.reader.execute("UPDATE conversations SET title = 'x'")
