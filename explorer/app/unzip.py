"""Zips no importer reads whole (a zipped Claude Code projects folder, a mix of exports)
are unpacked into a temporary folder, safely, and imported like a folder.

Entries with ``..`` or absolute names are refused, sizes and compression ratios
are capped (a zip bomb stops with a clear error), and the folder is removed
when the import ends.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from explorer.formats.base import FormatError
from explorer.formats.registry import detect
from explorer.formats.safe_zip import SafeZip, is_zip

CHUNK = 1 << 20


@contextmanager
def unpacked(paths: Iterable[Path], notes: list[str]) -> Iterator[list[Path]]:
    """The paths, with each unclaimed zip replaced by a folder holding its entries."""
    with tempfile.TemporaryDirectory(prefix="convo-import-") as tmp:
        out: list[Path] = []
        for i, path in enumerate(paths):
            if path.is_file() and is_zip(path) and detect(path) is None:
                folder = Path(tmp) / f"{i}-{path.stem}"
                try:
                    _extract(path, folder, notes)
                except FormatError as e:
                    notes.append(str(e))
                    continue
                out.append(folder)
            else:
                out.append(path)
        yield out


def _extract(path: Path, folder: Path, notes: list[str]) -> None:
    with SafeZip(path) as archive:
        notes.extend(f"{path.name}: {reason}" for reason in archive.refused)
        for name in archive.names():
            dest = folder.joinpath(*Path(name).parts)
            dest.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(name) as src, dest.open("wb") as out:
                shutil.copyfileobj(src, out, CHUNK)
