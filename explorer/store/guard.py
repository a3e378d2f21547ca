"""The database's own files are touched by SQLite alone (W1).

SQLite keeps its locks with POSIX advisory locks, and POSIX drops *every* lock a process
holds on a file when *any* descriptor of that file is closed in that process. So one
``open()``/``close()`` of ``explorer.db``, ``-wal`` or ``-shm`` anywhere in the program (a
file dialog sniffing types, an import walking the folder, a screenshot written over it)
silently unlocks the database: another process then believes it is the last one,
checkpoints, and deletes the journal this process still writes into.

This module is the process-wide list of databases a :class:`~explorer.store.store.Store`
has open, so code that reads or writes arbitrary paths can ask whether a path is one of
them before touching it, and the writer's check that the journal it holds is still the
file on disk (:class:`JournalWatch`).
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from pathlib import Path

COMPANIONS = ("", "-wal", "-shm", "-journal")

_lock = threading.Lock()
_open: Counter[Path] = Counter()
_known: dict[Path, tuple[frozenset[Path], tuple[int, int] | None]] = {}
"""Each open database: its files' resolved names, and its own identity, worked out once
(``database_of`` runs for every file an import sniffs)."""


def files_of(db_path: Path) -> tuple[Path, ...]:
    """The database file and the companions SQLite keeps beside it."""
    return tuple(Path(str(db_path) + suffix) for suffix in COMPANIONS)


def register(db_path: Path) -> None:
    key = _resolved(db_path)
    with _lock:
        _open[key] += 1
        _known[key] = (frozenset(files_of(key)), _identity(key))


def unregister(db_path: Path) -> None:
    with _lock:
        key = _resolved(db_path)
        _open[key] -= 1
        if _open[key] <= 0:
            del _open[key]
            _known.pop(key, None)


def open_databases() -> list[Path]:
    with _lock:
        return list(_open)


def database_of(path: Path, also: Path | None = None) -> Path | None:
    """The open database (or ``also``) that ``path`` is, or is a companion file of; None
    for any other path. Compared by resolved name, and with the database file itself by
    identity, so a link or a second name of it counts too."""
    with _lock:
        known = dict(_known)
    if also is not None:
        key = _resolved(also)
        known.setdefault(key, (frozenset(files_of(key)), _identity(key)))
    if not known:
        return None
    target = _resolved(path)
    for db, (names, _ident) in known.items():
        if target in names:
            return db
    ident = _identity(path)
    if ident is None:
        return None
    return next((db for db, (_names, own) in known.items() if own == ident), None)


def describe(path: Path, db: Path) -> str:
    """Which of the database's files ``path`` is, in words."""
    name = _resolved(path).name
    suffix = name[len(db.name):] if name.startswith(db.name) else ""
    return f"the database's {suffix} file" if suffix else "the open database"


def _resolved(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if st.st_ino else None


class JournalWatch:
    """Whether the ``-wal`` and ``-shm`` this process writes through are still the files
    on disk: if another process deleted them (after this one's locks were dropped), every
    write from here on would go into a file nobody else will ever read."""

    def __init__(self, db_path: Path) -> None:
        self.files = (Path(f"{db_path}-wal"), Path(f"{db_path}-shm"))
        self._seen: tuple[tuple[int, int] | None, ...] | None = None

    def remember(self) -> None:
        """Note the journal's identity now (right after opening the connection)."""
        seen = tuple(_identity(f) for f in self.files)
        self._seen = seen if all(seen) else None

    def lost(self) -> str | None:
        """Why the journal is no longer ours, or None while it is."""
        if self._seen is None:
            self.remember()
            return None
        for path, seen in zip(self.files, self._seen, strict=True):
            now = _identity(path)
            if now is None:
                return f"{path.name} was deleted by another program"
            if now != seen:
                return f"{path.name} was replaced by another program"
        return None
