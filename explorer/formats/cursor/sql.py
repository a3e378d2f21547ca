"""Opening Cursor's SQLite files read-only (Cursor may be writing them: both use WAL)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"


def connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def tables_of(conn: sqlite3.Connection) -> set[str]:
    return {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def tables_at(path: Path) -> set[str]:
    """The tables of an SQLite file, or none for any other file (or a damaged one)."""
    try:
        with path.open("rb") as handle:
            if handle.read(16) != SQLITE_MAGIC:
                return set()
        with closing(connect(path)) as conn:
            return tables_of(conn)
    except (OSError, sqlite3.Error):
        return set()
