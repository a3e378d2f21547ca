"""Which paths an import may open: never the database this program has open (closing it
would drop SQLite's locks, W1), never a pipe or device (one waits forever, the other never
ends), never a hidden entry; and the odd entries a folder read whole leaves out."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from explorer.store.guard import database_of


def visible(name: str) -> bool:
    return not name.startswith(".")


def not_regular(path: Path) -> str | None:
    """What ``path`` is when it is neither a folder nor a regular file (a link is followed):
    reading a named pipe waits forever, a device (``/dev/zero``) never ends."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # missing or unreadable: said where it is read
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket" if stat.S_ISSOCK(mode) else "not a regular file"


def odd_entries(folder: Path, limit: int) -> Iterator[tuple[Path, str]]:
    """The pipes, devices and sockets in ``folder`` (a format that reads a folder whole reads
    regular files only, so these are left out)."""
    seen = 0
    for top, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if visible(d)]
        for name in files:
            seen += 1
            if seen > limit:
                return
            odd = not_regular(Path(top) / name) if visible(name) else None
            if odd is not None:
                yield Path(top) / name, odd


def own_database(path: Path) -> bool:
    """Whether ``path`` is a database this process has open, or one of its companions."""
    return database_of(path) is not None
