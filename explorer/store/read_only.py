"""A database this process may not write: read through read-only connections, writes refused.

WAL mode keeps ``-wal`` and ``-shm`` beside the file, so a database in a folder this user
cannot write (a mounted backup, another user's archive) could not even be listed: the
usual connection fails before the first read. Such a file is opened read-only instead:
``mode=ro``, and ``immutable=1`` when its folder cannot take the companions and none is
there (nothing can be writing it then, and everything is in the file itself). No write
connection is made, no migration runs, nothing derived is kept, and a write says in one
line why it was refused, with the file left as it was (W1).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from explorer.store.connection import open_read_only
from explorer.store.errors import StoreError
from explorer.store.migrations import MIGRATIONS, applied, check_known
from explorer.store.writer import Writer

T = TypeVar("T")


class ReadOnlyDatabase(StoreError):
    """A write to a database this process may not write; nothing in the file changed."""


def writable(path: Path) -> bool:
    """Whether this user may write ``path`` (the one check, so tests can stand in for it)."""
    return os.access(path, os.W_OK)


def folder_writable(path: Path) -> bool:
    """Whether SQLite may create the database's companions (``-wal``, ``-shm``) beside it."""
    return writable(path.parent) and os.access(path.parent, os.X_OK)


def why_read_only(path: Path) -> str | None:
    """Why ``path`` must be opened read-only (its folder or the file is not writable), or
    None when it may be written. A database that does not exist yet is refused when its
    folder cannot take it."""
    if not folder_writable(path):
        if not path.exists():
            raise ReadOnlyDatabase(f"cannot create the database {path}: its folder "
                                   f"{path.parent} is not writable")
        return f"its folder {path.parent} is not writable"
    if path.exists() and not writable(path):
        return "the file is not writable"
    return None


def read_only_uri(path: Path) -> str:
    """The URI of a read-only connection to ``path`` (its name quoted, so a folder named
    "a #1" or "what?" opens as any other)."""
    immutable = not folder_writable(path) and not Path(f"{path}-wal").exists()
    return f"{path.resolve().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")


def connect(path: Path) -> sqlite3.Connection:
    return open_read_only(read_only_uri(path))


def refusal(path: Path, reason: str) -> str:
    return f"the database {path} is read-only ({reason}): nothing was changed"


def check_readable(conn: sqlite3.Connection, path: Path, reason: str) -> None:
    """Refuse a read-only file this version cannot read as it is: one a newer version
    upgraded, one that needs an upgrade, one whose journal cannot be read here."""
    try:
        check_known(conn)
        done = applied(conn)
    except sqlite3.OperationalError as e:
        raise (stuck_journal(path) or e) from e
    if not done:
        raise ReadOnlyDatabase(f"the database {path} is read-only ({reason}) and not a "
                               "database yet: nothing can be written into it")
    if len(done) < len(MIGRATIONS):
        raise ReadOnlyDatabase(
            f"the database {path} is read-only ({reason}) and was written by an older "
            "version: it needs an upgrade this version cannot write here; open it once "
            "where it can be written, then it can be read here too")


def stuck_journal(path: Path) -> ReadOnlyDatabase | None:
    """Why ``path`` cannot be read, when that is its journal: a ``-wal`` left by a process
    that did not close it, in a folder where SQLite cannot make the ``-shm`` to read it by
    (and reading without it would show the file as it was before those writes)."""
    if folder_writable(path) or not Path(f"{path}-wal").exists():
        return None
    return ReadOnlyDatabase(
        f"the database {path} cannot be read here: it is read-only (its folder {path.parent} "
        f"is not writable) and was not closed cleanly (its {path.name}-wal holds writes not "
        "yet in it); open it once where it can be written")


class RefusingWriter(Writer):
    """The store's writer for a read-only database: no thread, no connection, and every
    write refused with the reason."""

    def __init__(self, path: Path, reason: str) -> None:  # no super(): it would connect
        self._path = path
        self.reason = reason
        self.unsized = False  # nothing is sized where nothing can be written

    def refuse(self) -> ReadOnlyDatabase:
        return ReadOnlyDatabase(refusal(self._path, self.reason))

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
        raise self.refuse()

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        raise self.refuse()

    def call_bulk(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        raise self.refuse()

    def close(self) -> None:
        """Nothing was opened."""
