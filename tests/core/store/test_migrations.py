"""Migrations are append-only and upgrade a file from blank and from every older version."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import chat_turn

from explorer.store import Store
from explorer.store.connection import open_connection
from explorer.store.migrations import MIGRATIONS, NewerDatabase, applied, migrate


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def test_blank_file_gets_every_migration_and_wal(tmp_path: Path) -> None:
    conn = open_connection(tmp_path / "a.db")
    assert migrate(conn) == [name for name, _ in MIGRATIONS]
    assert {"conversations", "messages", "parts", "blobs", "checkpoints", "rewinds",
            "compactions", "parts_fts"} <= _tables(conn)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    indexes = {r[1] for r in conn.execute("PRAGMA index_list(messages)")}
    assert {"idx_messages_parent_id", "idx_messages_conversation_id"} <= indexes
    assert migrate(conn) == []


@pytest.mark.parametrize("upto", range(1, len(MIGRATIONS)))
def test_upgrade_from_each_older_version_keeps_the_data(tmp_path: Path, upto: int) -> None:
    db = tmp_path / "old.db"
    conn = open_connection(db)
    migrate(conn, upto=upto)
    conn.execute("INSERT INTO conversations(id, title, tip_id) VALUES (1, 'old', 2)")
    conn.executemany(
        "INSERT INTO messages(id, conversation_id, parent_id, role) VALUES (?, 1, ?, ?)",
        [(1, None, "user"), (2, 1, "assistant")],
    )
    conn.executemany(
        "INSERT INTO parts(message_id, idx, kind, text) VALUES (?, 0, 'text', ?)",
        [(1, "hello old"), (2, "hi")],
    )
    has_trigger = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'parts_ai'").fetchone()
    if upto >= 3 and not has_trigger:  # from 0006 on, the writer indexes what it inserts
        conn.execute("INSERT INTO parts_fts(rowid, text) SELECT id, text FROM parts")
    conn.close()
    with Store(db) as s:
        assert applied(s.reader) == [name for name, _ in MIGRATIONS]
        assert [m.text for m in s.path(1)] == ["hello old", "hi"]
        assert [h.message_id for h in s.search("hello")] == [1]
        s.append_turn(1, chat_turn(2))
        s.checkpoint(1, "after-upgrade")
        assert s.conversation(1).message_count == 4


def test_a_file_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    conn = open_connection(tmp_path / "new.db")
    migrate(conn)
    conn.execute("INSERT INTO _migrations VALUES ('9999_future', 0, '9.0')")
    with pytest.raises(NewerDatabase, match=r"newer version of Conversation Explorer \(by "
                       r"version 9\.0\): it has the migration\(s\) 9999_future this version"):
        migrate(conn)


def test_migration_names_are_unique_and_ordered() -> None:
    names = [name for name, _ in MIGRATIONS]
    assert names == sorted(names) and len(set(names)) == len(names)


def test_opening_an_up_to_date_file_loads_no_migration_library(tmp_path: Path) -> None:
    """Start-up cost: sqlite_utils (and the plugin scan it does) is imported only to migrate."""
    import subprocess
    import sys

    db = tmp_path / "current.db"
    Store(db).close()  # created and migrated here
    probe = ("import sys; from explorer.store import Store; Store(sys.argv[1]).close(); "
             "print('sqlite_utils' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe, str(db)], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[3])
    assert out.stdout.strip() == "False"
    assert applied(open_connection(db)) == [name for name, _ in MIGRATIONS]


def test_a_conversation_is_found_by_its_source_id_through_an_index(tmp_path: Path) -> None:
    """Every import looks its conversation up by source id first: a scan per session made
    a first sync of thousands quadratic."""
    with Store(tmp_path / "t.db") as s:
        plan = " ".join(r[3] for r in s.reader.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM conversations "
            "WHERE source_format = ? AND source_id = ?", ("claude_code", "x")))
    assert "INDEX conversations_source (source_format=? AND source_id=?)" in plan

