"""A full disk during an import says so in one line that names what was not written, and
the file is left as it was before the write (SQLite rolls it back whole); it used to say
"cannot rollback - no transaction is active"."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.app.importing.run import import_paths
from explorer.store import Store
from explorer.store.writer import DiskFull
from tests.helpers import chat_turn


def _limit_pages(store: Store, extra: int) -> None:
    """The file may grow ``extra`` pages more: what a full disk looks like to SQLite."""
    def limit(conn: object) -> None:
        import sqlite3

        assert isinstance(conn, sqlite3.Connection)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + extra}")
    store.transact(limit)


def test_a_full_disk_during_an_import_names_what_was_not_written(tmp_path: Path) -> None:
    from benchmarks.scale_data import one_session

    session = one_session(tmp_path / "in", 3000, seed=11)
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("kept before")
        store.append_turn(conv, chat_turn(1))
        _limit_pages(store, 20)
        with pytest.raises(DiskFull, match=r"^the disk is full: nothing of '.+' was written "
                                           r"\(what was imported before it is kept\); free "
                                           r"space and import again$"):
            import_paths(store, [session])
        assert [c.title for c in store.conversations()] == ["kept before"]
        ok = store.reader.execute("PRAGMA integrity_check").fetchone()[0]
        assert ok == "ok"
        _limit_pages(store, 1_000_000)  # space again: the same import goes through
        assert import_paths(store, [session]).added_messages == 3000


def test_a_full_disk_on_an_ordinary_write_says_so_and_keeps_the_file(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("small")
        _limit_pages(store, 0)
        with pytest.raises(DiskFull, match="nothing of this write was made"):
            store.append_turn(conv, [m for n in range(200) for m in chat_turn(n)])
        assert store.conversation(conv).message_count == 0
