"""Append-only named migrations (:mod:`.migration_steps`); a file records which ones it
has had, and a file a newer version moved further is refused untouched.

Each migration runs in its own transaction, so a crash mid-upgrade leaves the previous
version.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from explorer import __version__
from explorer.store import fresh_schema
from explorer.store.errors import StoreError
from explorer.store.migration_steps import MIGRATIONS

__all__ = ["MIGRATIONS", "NewerDatabase", "applied", "check_known", "migrate", "migrate_by_steps"]


class NewerDatabase(StoreError):
    """The file was written by a newer version: this one must not touch it."""


def applied(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations this file has had, in order (none for a new file)."""
    if not _has_table(conn):
        return []
    return [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]


def _has_table(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                        "name = '_migrations'").fetchone() is not None


def check_known(conn: sqlite3.Connection) -> None:
    """Refuse, before anything is written, a file a newer version has migrated further."""
    done = applied(conn)
    known = [name for name, _ in MIGRATIONS]
    if done == known[: len(done)]:
        return
    unknown = [n for n in done if n not in known]
    versions = _versions(conn, unknown)
    by = f" (by version {', '.join(versions)})" if versions else ""
    raise NewerDatabase(
        f"this database was upgraded by a newer version of Conversation Explorer{by}: it has "
        f"the migration(s) {', '.join(unknown or done)} this version ({__version__}) does not "
        "know; open it with that version or a later one. Nothing in the file was changed")


def _versions(conn: sqlite3.Connection, names: list[str]) -> list[str]:
    columns = {r[1] for r in conn.execute("PRAGMA table_info(_migrations)")}
    if "version" not in columns or not names:
        return []
    marks = ", ".join("?" for _ in names)
    return sorted({str(r[0]) for r in conn.execute(
        f"SELECT version FROM _migrations WHERE name IN ({marks}) AND version IS NOT NULL",
        names)})


def migrate(conn: sqlite3.Connection, upto: int | None = None) -> list[str]:
    """Apply pending migrations (the first ``upto`` of them, for tests); return their names.

    A new file is made from the snapshot of them all (:mod:`.fresh_schema`), and only
    migrations newer than it run as steps."""
    made: list[str] = []
    if upto is None and fresh_schema.is_new(conn):  # (an empty file has had nothing to check)
        made = fresh_schema.create(conn, [name for name, _ in MIGRATIONS])
    return made + migrate_by_steps(conn, upto)


def migrate_by_steps(conn: sqlite3.Connection, upto: int | None = None) -> list[str]:
    """Apply pending migrations one by one (the first ``upto`` of them); their names.

    Each step takes the write lock first and looks again at what the file has had, so two
    processes opening a new file at once both succeed (the second finds the work done)."""
    check_known(conn)
    pending = MIGRATIONS[len(applied(conn)) : upto]
    if not pending:
        return []
    from explorer.store.lean_import import sqlite_utils  # half a second of imports

    db = sqlite_utils().Database(conn)
    ran: list[str] = []
    for name, step in pending:
        conn.execute("BEGIN IMMEDIATE")
        try:
            _ensure_table(conn)
            check_known(conn)  # another process may have moved on meanwhile
            if name not in applied(conn):
                step(db)
                conn.execute("INSERT INTO _migrations (name, applied_at, version) "
                             "VALUES (?, ?, ?)", (name, time.time(), __version__))
                ran.append(name)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return ran


def _ensure_table(conn: sqlite3.Connection) -> None:
    """The migrations' own table, with the version that applied each (read by an older
    version that meets this file)."""
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, "
                 "applied_at REAL NOT NULL, version TEXT)")
    columns = {r[1] for r in conn.execute("PRAGMA table_info(_migrations)")}
    if "version" not in columns:
        conn.execute("ALTER TABLE _migrations ADD COLUMN version TEXT")


UPGRADE_NOTICE_BYTES = 100 << 20
"""From this size on, a file that still needs migrations is said to be upgrading: a step
that builds an index reads every message (3.9 s on a 2.2 GB archive)."""


def slow_upgrade(path: Path) -> bool:
    """Whether opening ``path`` will run migrations over a file big enough to take a
    while (a new, small or current file: no). Looked at read-only; any doubt is no."""
    from explorer.store import read_only  # (it reads this module's list)

    try:
        if path.stat().st_size < UPGRADE_NOTICE_BYTES:
            return False
        conn = read_only.connect(path)
    except (OSError, sqlite3.Error):  # opening it for real says what is wrong, if anything
        return False
    try:
        done = applied(conn)
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    known = [name for name, _ in MIGRATIONS]
    return bool(done) and done == known[: len(done)] and len(done) < len(known)
