"""Opening the SQLite file: WAL, foreign keys, full durability, explicit transactions."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PAGE_BYTES = 8192
"""The page size of a new database file (SQLite's default is 4096). Tool outputs and record
metadata of a few kilobytes each spilled into overflow pages: a 100,000-message session
stored 0.15 s faster and 5 % smaller in pages twice as large (16 KiB: no faster, the
commit slower). A file made before keeps its pages."""


def open_connection(path: str | Path) -> sqlite3.Connection:
    """A connection in autocommit mode; writes go through ``transaction``.

    ``synchronous=FULL`` makes every committed turn survive a power cut, not
    only a process crash (P2).
    """
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute(f"PRAGMA page_size={PAGE_BYTES}")  # a new file only, and only before WAL
    _use_wal(conn)
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def open_read_only(uri: str) -> sqlite3.Connection:
    """A connection that cannot write, to a ``mode=ro`` URI
    (:func:`explorer.store.read_only.read_only_uri` makes it)."""
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def _use_wal(conn: sqlite3.Connection, seconds: float = 10.0) -> None:
    """WAL mode, waiting for another process doing the same to a new file: SQLite answers
    "database is locked" to the second one at once (its busy handler is not asked while the
    file's first connection switches modes), so the switch is tried again for a while."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One atomic unit of work: committed whole or rolled back whole."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:  # SQLite rolls back by itself on a full disk: the cause wins
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


NO_CKPT_ON_CLOSE = 1006  # SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE


def keep_journal_on_close(conn: sqlite3.Connection) -> bool:
    """Make closing ``conn`` leave the WAL as it is instead of copying it into the database.

    Used only when the journal this process holds was deleted under it: its frames were
    written against a database another process has changed since, and copying them in
    would corrupt it. Python 3.12 has ``setconfig``; on 3.11 the same SQLite call is made
    through ctypes. Returns whether it took effect.
    """
    setconfig = getattr(conn, "setconfig", None)
    if setconfig is not None:
        setconfig(NO_CKPT_ON_CLOSE, True)
        return True
    return _db_config_ctypes(conn, NO_CKPT_ON_CLOSE, 1)


def _db_config_ctypes(conn: sqlite3.Connection, op: int, value: int) -> bool:
    import ctypes
    import sys

    if sys.implementation.name != "cpython":
        return False
    try:
        import _sqlite3

        lib = ctypes.CDLL(_sqlite3.__file__)
        db_config = lib.sqlite3_db_config
    except (OSError, AttributeError, ImportError):
        return False
    # CPython's connection object starts with its ``sqlite3 *db`` right after the header
    handle = ctypes.c_void_p.from_address(id(conn) + object.__basicsize__).value
    if not handle:
        return False
    db_config.restype = ctypes.c_int
    out = ctypes.c_int(-1)
    rc = db_config(ctypes.c_void_p(handle), ctypes.c_int(op), ctypes.c_int(value),
                   ctypes.byref(out))
    return bool(rc == 0 and out.value == value)
