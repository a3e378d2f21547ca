"""Allocating fresh integer ids inside the writer's transaction."""

from __future__ import annotations

import sqlite3

MESSAGE_ID_FLOOR = "message_id_floor"


def next_ids(conn: sqlite3.Connection, table: str, count: int) -> range:
    """``count`` unused ids; safe because a single writer holds the write lock.

    Message ids never go below the floor a deletion raised: a tombstoned message keeps its
    id reserved, so undoing the deletion can put it back under the same id (T7).
    """
    top = conn.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0]
    if table == "messages":
        top = max(top, id_floor(conn, MESSAGE_ID_FLOOR))
    return range(top + 1, top + 1 + count)


def id_floor(conn: sqlite3.Connection, name: str) -> int:
    row = conn.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
    return int(row[0]) if row else 0


def raise_id_floor(conn: sqlite3.Connection, name: str, value: int) -> None:
    conn.execute(
        "INSERT INTO counters(name, value) VALUES (?, ?) ON CONFLICT(name) "
        "DO UPDATE SET value = max(value, excluded.value)", (name, value),
    )
