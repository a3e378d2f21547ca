"""Zips no importer reads whole (a zipped Claude Code projects folder, a mix of exports,
a zip inside a folder) are unpacked into a temporary folder, safely, and imported like
a folder.

Entries with ``..`` or absolute names are refused, sizes and compression ratios
are capped (a zip bomb stops with a clear error), zips inside zips are opened only
a few levels deep, and the folder is removed when the import ends. A killed import
cannot remove its folder, so each import first removes the folders of imports
that are no longer running (each folder names its owner's process id).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

CHUNK = 1 << 20
PREFIX = "convo-import-"
OWNER = ".owner-pid"
MAX_DEPTH = 3  # a zip in a zip in a zip; deeper ones are reported, not opened
OWNERLESS_AGE_S = 3600.0  # folders from before owners were recorded


class Unpacker:
    """Unpacks zips into one temporary folder for the length of an import."""

    def __init__(self, root: Path, notes: list[str]) -> None:
        self.root = root
        self.notes = notes
        self.count = 0

    def unpack(self, path: Path, depth: int = 0) -> Path | None:
        """A folder holding the zip's entries, or None (the reason is in ``notes``)."""
        if depth >= MAX_DEPTH:
            self.notes.append(f"{path}: a zip nested {depth} levels deep; not opened")
            return None
        self.count += 1
        folder = self.root / f"{self.count}-{path.stem}"
        from explorer.formats.base import FormatError  # the window's start needs none of it

        try:
            _extract(path, folder, self.notes)
        except FormatError as e:
            self.notes.append(str(e))
            return None
        return folder


def unclaimed_zip(path: Path) -> bool:
    """A zip file that no importer reads as it is (so it is unpacked and searched)."""
    from explorer.formats.registry import detect
    from explorer.formats.safe_zip import is_zip

    return path.is_file() and is_zip(path) and detect(path) is None


@contextmanager
def unpacked(paths: Iterable[Path], notes: list[str]) -> Iterator[tuple[list[Path], Unpacker]]:
    """The paths, with each unclaimed zip replaced by a folder holding its entries, and
    the unpacker for zips found inside folders."""
    remove_stale_folders(Path(tempfile.gettempdir()))
    with tempfile.TemporaryDirectory(prefix=PREFIX) as tmp:
        (Path(tmp) / OWNER).write_text(str(os.getpid()), encoding="ascii")
        unpacker = Unpacker(Path(tmp), notes)
        out: list[Path] = []
        for path in paths:
            if unclaimed_zip(path):
                folder = unpacker.unpack(path)
                if folder is not None:
                    out.append(folder)
            else:
                out.append(path)
        yield out, unpacker


def remove_stale_folders(tmp: Path) -> list[Path]:
    """Remove the unpack folders of imports that are no longer running; answers them."""
    removed: list[Path] = []
    try:
        candidates = [p for p in tmp.iterdir() if p.name.startswith(PREFIX) and p.is_dir()]
    except OSError:
        return removed
    for folder in candidates:
        if _is_stale(folder):
            shutil.rmtree(folder, ignore_errors=True)
            if not folder.exists():
                removed.append(folder)
    return removed


def _is_stale(folder: Path) -> bool:
    try:
        pid = int((folder / OWNER).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        try:
            return time.time() - folder.stat().st_mtime > OWNERLESS_AGE_S
        except OSError:
            return False
    return pid != os.getpid() and not _running(pid)


def _running(pid: int) -> bool:
    if pid <= 0:
        return False
    if os.name == "nt":  # os.kill would end the process there, not probe it
        return _running_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # a process we may not signal still exists
    return True


def _running_windows(pid: int) -> bool:
    import ctypes

    kernel32 = getattr(ctypes, "windll").kernel32  # noqa: B009 - absent from non-Windows stubs
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    try:
        code = ctypes.c_ulong()
        kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def _extract(path: Path, folder: Path, notes: list[str]) -> None:
    from explorer.formats.safe_zip import SafeZip

    with SafeZip(path) as archive:
        notes.extend(f"{path.name}: {reason}" for reason in archive.refused)
        for name in archive.names():
            dest = folder.joinpath(*Path(name).parts)
            dest.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(name) as src, dest.open("wb") as out:
                shutil.copyfileobj(src, out, CHUNK)
