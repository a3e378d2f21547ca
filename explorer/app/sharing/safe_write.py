"""Writing a file without ever destroying one.

Every file a command writes (an export, preview pages, a screenshot) goes to a
temporary file beside the target and is renamed into place only when it is
complete, so a failure leaves the old file as it was. A target that is not a
regular file (``/dev/null``, a named pipe) is written into directly: it is a
stream, and replacing it would put a plain file where a device or pipe belongs.
A target that is the open database (the command's, or any this process has open), or its
``-wal``/``-shm``/``-journal`` companion (by resolved path or by file identity, so links
count too), is refused before anything is written (W1).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from explorer.store import guard as db_guard
from explorer.store.errors import StoreError


class WriteRefused(StoreError):
    """The target is a file this command must not write over."""


def guard(dest: Path, db_path: Path | None) -> None:
    """Refuse ``dest`` when it is an open database or one of its companion files."""
    db = db_guard.database_of(dest, also=db_path)
    if db is not None:
        raise WriteRefused(f"refusing to write {dest}: it is {db_guard.describe(dest, db)} "
                           f"({db}); choose another file")
    if dest.is_dir():
        raise WriteRefused(f"refusing to write {dest}: it is a folder")


@contextlib.contextmanager
def atomic_text(dest: Path, db_path: Path | None = None) -> Iterator[IO[str]]:
    """A text file that replaces ``dest`` only once the block finishes without error."""
    with replacing(dest, db_path) as tmp, tmp.open("w", encoding="utf-8", newline="\n") as f:
        yield f
        _sync(f)


@contextlib.contextmanager
def atomic_binary(dest: Path, db_path: Path | None = None) -> Iterator[IO[bytes]]:
    with replacing(dest, db_path) as tmp, tmp.open("wb") as f:
        yield f
        _sync(f)


def write_bytes(dest: Path, data: bytes, db_path: Path | None = None) -> None:
    with atomic_binary(dest, db_path) as f:
        f.write(data)


def write_text(dest: Path, text: str, db_path: Path | None = None) -> None:
    with atomic_text(dest, db_path) as f:
        f.write(text)


def _sync(f: IO[str] | IO[bytes]) -> None:
    f.flush()
    if stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        os.fsync(f.fileno())


@contextlib.contextmanager
def replacing(dest: Path, db_path: Path | None = None) -> Iterator[Path]:
    """A temporary path beside ``dest``, renamed over it when the block succeeds
    (for writers that want a file name, like Qt's image saving)."""
    guard(dest, db_path)
    final = _final(dest)
    if final.exists() and not final.is_file():  # /dev/null, a FIFO: stream into it, never
        yield final                              # put a file in its place
        return
    if not final.parent.is_dir():
        raise WriteRefused(f"cannot write {dest}: the folder {final.parent} does not exist")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".part",
                                        dir=final.parent)
    except OSError as e:
        raise OSError(f"cannot write {dest}: {e.strerror or e}") from e
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        _keep_mode(dest, tmp)
        guard(dest, db_path)  # a link made while we wrote still must not win
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _final(dest: Path) -> Path:
    """A symlink target is replaced where it points, not turned into a plain file."""
    return Path(os.path.realpath(dest)) if dest.is_symlink() else dest


def _keep_mode(dest: Path, tmp: Path) -> None:
    """The new file gets the old one's permissions (mkstemp makes it private)."""
    try:
        os.chmod(tmp, os.stat(dest).st_mode & 0o7777)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
