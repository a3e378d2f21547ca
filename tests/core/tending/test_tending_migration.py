"""The tending migration upgrades files from every older version, and tending works on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.app.tending import tree_actions as ta
from explorer.app.tending import undo
from explorer.store import Store
from explorer.store.connection import open_connection
from explorer.store.migrations import MIGRATIONS, migrate

TENDING = [name for name, _ in MIGRATIONS].index("0008_tending")


@pytest.mark.parametrize("upto", range(1, TENDING + 1))
def test_T7_an_upgraded_file_deletes_and_restores_its_old_messages(
    tmp_path: Path, upto: int
) -> None:
    db = tmp_path / "old.db"
    conn = open_connection(db)
    migrate(conn, upto=upto)
    conn.execute("INSERT INTO conversations(id, title, tip_id) VALUES (1, 'old', 2)")
    conn.executemany(
        "INSERT INTO messages(id, conversation_id, parent_id, role) VALUES (?, 1, ?, ?)",
        [(1, None, "user"), (2, 1, "assistant"), (3, 1, "assistant")],
    )
    conn.executemany("INSERT INTO parts(message_id, idx, kind, text) VALUES (?, 0, 'text', ?)",
                     [(1, "hello"), (2, "kept"), (3, "side")])
    has_trigger = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'parts_ai'").fetchone()
    if upto >= 3 and not has_trigger:  # as the writer does from 0006 on
        conn.execute("INSERT INTO parts_fts(rowid, text) SELECT id, text FROM parts")
    conn.close()
    with Store(db) as s:
        assert {"message_marks", "tombstones", "operations", "counters"} <= {
            r[0] for r in s.reader.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        ta.archive(s, 3)
        undo.undo(s)
        ta.delete(s, 3)
        assert [n.id for n in s.skeleton(1)] == [1, 2]
        assert undo.undo(s).changed["restored"] == [3]
        assert s.message(3).text == "side"
        assert [h.message_id for h in s.search("side")] == [3]
