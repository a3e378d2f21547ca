"""V2: the reads a conversation's open makes off the main thread fetch their rows a bounded
chunk at a time (the peak stays one chunk; the window's thread gets turns between them)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, cast

from explorer.store import Store
from explorer.store.fetching import FETCH_ROWS, in_chunks
from explorer.store.turn_reads import read_previews
from explorer.tree.model import Message, Part


class CountingCursor:
    """A real cursor that notes how many rows each fetch asked for."""

    def __init__(self, cursor: sqlite3.Cursor, asked: list[int]) -> None:
        self.cursor, self.asked = cursor, asked

    def fetchmany(self, size: int) -> list[Any]:
        self.asked.append(size)
        return self.cursor.fetchmany(size)

    def fetchall(self) -> list[Any]:
        self.asked.append(-1)  # everything at once
        return self.cursor.fetchall()

    def __iter__(self) -> Any:
        raise AssertionError("row by row through iteration is not what the read should do")


class CountingConnection:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.asked: list[int] = []

    def execute(self, sql: str, params: Any = ()) -> CountingCursor:
        return CountingCursor(self.conn.execute(sql, params), self.asked)


def _store_with(tmp_path: Path, n: int) -> tuple[Store, list[int]]:
    store = Store(tmp_path / "chunks.db")
    cid = store.create_conversation("chunks")
    msgs = [Message(id=k, parent_id=k - 1 if k else None,
                    role="user" if k % 2 == 0 else "assistant",
                    parts=[Part(kind="text", text=f"message number {k}")]) for k in range(n)]
    return store, store.append_turn(cid, msgs)


def test_V2_chunks_are_bounded_and_hold_every_row(tmp_path: Path) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (k INTEGER)")
    conn.executemany("INSERT INTO t VALUES (?)", [(k,) for k in range(3 * FETCH_ROWS + 7)])
    chunks = list(in_chunks(conn.execute("SELECT k FROM t ORDER BY k")))
    assert [len(c) for c in chunks] == [FETCH_ROWS] * 3 + [7]
    assert [r[0] for c in chunks for r in c] == list(range(3 * FETCH_ROWS + 7))
    assert list(in_chunks(conn.execute("SELECT k FROM t WHERE k < 0"))) == []


def test_V2_the_turn_labels_previews_are_fetched_in_bounded_chunks(tmp_path: Path) -> None:
    n = 2 * FETCH_ROWS + 40
    store, ids = _store_with(tmp_path, n)
    try:
        counting = CountingConnection(store.reader)
        said = read_previews(cast(sqlite3.Connection, counting), list(ids))
        assert counting.asked and all(0 < size <= FETCH_ROWS for size in counting.asked)
        assert len(said) == n
        assert said[ids[3]] == ("assistant", "message number 3")
        assert said == read_previews(store.reader, list(ids))
    finally:
        store.close()
