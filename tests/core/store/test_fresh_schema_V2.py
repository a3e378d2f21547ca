"""V2: a new file is made in one step from the snapshot of what every migration leaves.

The steps are written with ``sqlite_utils``, whose imports added 5-6 MB to a process that
made a new file (a first ``convo import`` of a 100,000-message session peaked that much
higher than an import into an existing file). The snapshot must make exactly the file the
steps make, and stay current as migrations are added."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from explorer.store import Store, fresh_schema, migrations
from explorer.store.connection import open_connection
from explorer.store.migrations import MIGRATIONS, applied, migrate, migrate_by_steps

NAMES = [name for name, _ in MIGRATIONS]


def _everything(conn: sqlite3.Connection) -> dict[str, Any]:
    """The schema, every table's rows (shadow tables of the full-text index too) and the
    pragmas a migration could set; ``_migrations`` by name only."""
    schema = sorted(conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"))
    tables = [r[1] for r in schema if r[0] == "table" and r[1] != "_migrations"]
    rows = {t: sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"'))) for t in tables}
    pragmas = {p: conn.execute(f"PRAGMA {p}").fetchone()[0]
               for p in ("user_version", "application_id", "page_size", "auto_vacuum",
                         "journal_mode", "foreign_keys")}
    return {"schema": schema, "rows": rows, "pragmas": pragmas, "applied": applied(conn)}


def test_V2_a_new_file_from_the_snapshot_is_the_file_the_steps_make(tmp_path: Path) -> None:
    with closing(open_connection(tmp_path / "steps.db")) as steps:
        assert migrate_by_steps(steps) == NAMES
        with closing(open_connection(tmp_path / "new.db")) as new:
            assert migrate(new) == NAMES
            assert _everything(new) == _everything(steps)
            assert new.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert migrate(new) == []


def test_V2_the_snapshot_is_current() -> None:
    """After adding a migration: ``python -m explorer.store.write_schema``."""
    assert fresh_schema.recorded() == fresh_schema.migrated_by_steps()


def test_V2_a_file_made_from_the_snapshot_searches_counts_and_stays_consistent(
        tmp_path: Path) -> None:
    from helpers import assistant, user

    with Store(tmp_path / "new.db") as store:
        conv = store.create_conversation("t")
        store.append_turn(conv, [user("find the walrus"), assistant("here it is")])
        assert [h.conversation_id for h in store.search("walrus")] == [conv]
        assert store.conversation(conv).message_count == 2
    with closing(sqlite3.connect(tmp_path / "new.db")) as conn:
        assert conn.execute("INSERT INTO parts_fts(parts_fts, rank) VALUES "
                            "('integrity-check', 1)").fetchall() == []
        assert conn.execute("SELECT v FROM parts_fts_config WHERE k = 'automerge'"
                            ).fetchone() == (16,)
        assert conn.execute("SELECT v FROM parts_fts_config WHERE k = 'hashsize'"
                            ).fetchone() == (2 << 20,)


def test_V2_a_new_file_has_larger_pages_and_an_older_file_keeps_its_own(
        tmp_path: Path) -> None:
    from helpers import user

    from explorer.store.connection import PAGE_BYTES

    older = tmp_path / "older.db"
    with closing(sqlite3.connect(older)) as conn:  # as SQLite made files before: 4 KiB
        conn.execute("PRAGMA page_size=4096")
        conn.execute("PRAGMA journal_mode=WAL")
    with Store(tmp_path / "new.db") as store:
        store.create_conversation("new")
    with Store(older) as store:
        conv = store.create_conversation("older")
        store.append_turn(conv, [user("the older file still takes writes")])
        assert [h.conversation_id for h in store.search("older")] == [conv]
    for path, size in ((tmp_path / "new.db", PAGE_BYTES), (older, 4096)):
        with closing(sqlite3.connect(path)) as conn:
            assert conn.execute("PRAGMA page_size").fetchone() == (size,)
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert PAGE_BYTES == 8192


def test_V2_migrations_newer_than_the_snapshot_run_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []

    def later(db: Any) -> None:
        ran.append("later")
        db.execute("CREATE TABLE later_things (id INTEGER PRIMARY KEY)")
    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, ("9999_later", later)])
    with closing(open_connection(tmp_path / "new.db")) as conn:
        assert migrate(conn) == [*NAMES, "9999_later"] and ran == ["later"]
        assert applied(conn) == [*NAMES, "9999_later"]


def test_V2_a_snapshot_that_does_not_fit_the_migrations_is_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(A snapshot made from other migrations than these: the steps make the file.)"""
    other = fresh_schema.Snapshot(("0001_other",), (("CREATE TABLE other (x)", ()),))
    monkeypatch.setattr(fresh_schema, "recorded", lambda: other)
    with closing(open_connection(tmp_path / "new.db")) as conn:
        assert migrate(conn) == NAMES
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "other" not in tables and "messages" in tables


def test_V2_a_file_that_is_not_empty_is_not_made_from_the_snapshot(tmp_path: Path) -> None:
    """Someone else's tables in the file: the first step meets them, as before."""
    with closing(open_connection(tmp_path / "x.db")) as conn:
        conn.execute("CREATE TABLE theirs (x)")
        assert not fresh_schema.is_new(conn)
        assert fresh_schema.create(conn, NAMES) == []
        assert applied(conn) == []


_OPEN_NEW = """
import sys
from explorer.store import Store
with Store(sys.argv[1]) as s:
    s.create_conversation("x")
print("sqlite_utils" in sys.modules)
"""


def test_V2_making_a_new_file_imports_no_migration_library(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", _OPEN_NEW, str(tmp_path / "new.db")],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
