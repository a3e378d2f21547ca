"""Opening the SQLite file: WAL, foreign keys, full durability, explicit transactions."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def open_connection(path: str | Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode; writes go through ``transaction``.

    ``synchronous=FULL`` makes every committed turn survive a power cut, not
    only a process crash (P2).
    """
    if readonly:
        conn = sqlite3.connect(
            f"file:{Path(path).as_posix()}?mode=ro", uri=True,
            isolation_level=None, check_same_thread=False,
        )
    else:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One atomic unit of work: committed whole or rolled back whole."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
