"""Allocating fresh integer ids inside the writer's transaction."""

from __future__ import annotations

import sqlite3


def next_ids(conn: sqlite3.Connection, table: str, count: int) -> range:
    """``count`` unused ids; safe because a single writer holds the write lock."""
    top = conn.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0]
    return range(top + 1, top + 1 + count)
