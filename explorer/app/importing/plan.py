"""Which sources an import reads, and with which importer, before anything is read.

A folder goes to one importer whole only when nothing in it belongs to another format; a
mixed folder is searched entry by entry, a zip no importer reads whole is unpacked and
searched, and everything nobody reads (the open database, pipes and devices, files over
their format's size limit, other files) is named in the report, never opened.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.app.importing.files import not_regular, odd_entries, own_database, visible
from explorer.app.importing.unzip import Unpacker, unclaimed_zip
from explorer.formats.importer import Importer
from explorer.formats.registry import capabilities, detect

if TYPE_CHECKING:
    from explorer.app.importing.run import ImportReport

FOLDER_SCAN_LIMIT = 5000


def input_size(path: Path) -> int:
    """Bytes of the files an import of ``path`` reads (hidden entries are never read)."""
    return sum(input_sizes(path))


def input_sizes(path: Path) -> Iterator[int]:
    """The size of each file an import of ``path`` reads, as a folder's walk finds them
    (a caller that only asks whether they reach a size stops the walk there)."""
    try:
        if not path.is_dir():
            yield path.stat().st_size if path.is_file() else 0
            return
    except OSError:
        return
    for folder, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if visible(d)]
        for name in files:
            if visible(name):
                try:
                    yield (Path(folder) / name).stat().st_size
                except OSError:
                    continue


def _sources(
    path: Path, unpacker: Unpacker | None = None, inside: bool = False, zips: int = 0
) -> Iterator[tuple[Path, Importer | None]]:
    """(path, importer or None).

    A folder goes to one importer whole (a Claude Code projects folder, an
    unpacked ChatGPT export) only when nothing inside belongs to another
    format; a mixed folder is searched entry by entry, and a zip found in it
    that no importer reads whole is unpacked and searched like a folder.
    """
    if own_database(path) or not_regular(path) is not None:
        yield path, None  # never opened: SQLite's locks (W1); a pipe or device never ends
        return
    module = detect(path)
    if not path.is_dir():
        if module is None and unpacker is not None and inside and unclaimed_zip(path):
            folder = unpacker.unpack(path, zips)
            if folder is not None:
                yield from _sources(folder, unpacker, True, zips + 1)
            return
        yield path, module
        return
    if module is not None and not _holds_other_formats(path, module):
        yield path, module
        return
    for child in sorted(path.iterdir()):
        if visible(child.name):
            yield from _sources(child, unpacker, True, zips)


def _holds_other_formats(folder: Path, module: Importer) -> bool:
    files = (f for f in folder.rglob("*")
             if f.is_file() and visible(f.name) and not own_database(f))
    for n, f in enumerate(files):
        if n >= FOLDER_SCAN_LIMIT:
            return False
        found = detect(f)
        if (found is not None and found is not module) or (found is None and unclaimed_zip(f)):
            return True
    return False


def plan_sources(
    paths: Iterable[Path], report: ImportReport, unpacker: Unpacker | None = None
) -> Iterator[tuple[Path, Importer | None]]:
    """Every source with its importer; sources nobody reads (a file over its format's size
    limit among them) are reported and given None."""
    for path in paths:
        if not path.exists():
            report.errors.append(f"{path}: no such file or folder")
            continue
        for source, module in _sources(path, unpacker):
            odd = not_regular(source)
            too_big = capabilities(module).limit.refusal(source) if module is not None else None
            if too_big is not None:
                (report.errors if source == path else report.skipped_files).append(too_big)
                module = None
            elif module is None and own_database(source):
                own = f"{source}: it is the database this program has open; not imported"
                (report.errors if source == path else report.skipped_files).append(own)
            elif module is None and odd is not None:
                (report.errors if source == path else report.skipped_files).append(
                    f"{source}: {odd}, not a file; skipped")
            elif module is not None and source.is_dir():  # read whole: say what it leaves out
                odd_ones = odd_entries(source, FOLDER_SCAN_LIMIT)
                report.skipped_files.extend(f"{entry}: {what}, not a file; skipped"
                                            for entry, what in odd_ones)
            elif module is None and source == path:
                report.errors.append(f"{source}: not a transcript format this program reads")
            elif module is None:
                report.skipped_files.append(f"{source}: not a transcript; skipped")
            yield source, module
