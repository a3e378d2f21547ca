"""Importing files, folders and zips: detect, read as a stream, store one conversation a time.

Each conversation is written in one transaction, so a failure leaves nothing
half-imported; the report says what was added, repaired and skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.registry import detect
from explorer.store import Store
from explorer.store.import_writes import ImportOutcome


@dataclass
class ImportReport:
    conversations: list[ImportOutcome] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped_files: list[str] = field(default_factory=list)

    @property
    def added_messages(self) -> int:
        return sum(c.added for c in self.conversations)

    def to_dict(self) -> dict[str, Any]:
        return {
            "conversations": [asdict(c) for c in self.conversations],
            "errors": self.errors,
            "skipped_files": self.skipped_files,
            "added_messages": self.added_messages,
        }


FOLDER_SCAN_LIMIT = 5000


def _sources(path: Path) -> Iterator[tuple[Path, Any]]:
    """(path, importer or None).

    A folder goes to one importer whole (a Claude Code projects folder, an
    unpacked ChatGPT export) only when nothing inside belongs to another
    format; a mixed folder is searched entry by entry.
    """
    module = detect(path)
    if not path.is_dir():
        yield path, module
        return
    if module is not None and not _holds_other_formats(path, module):
        yield path, module
        return
    for child in sorted(path.iterdir()):
        if not child.name.startswith("."):
            yield from _sources(child)


def _holds_other_formats(folder: Path, module: Any) -> bool:
    files = (f for f in folder.rglob("*") if f.is_file() and not f.name.startswith("."))
    for n, f in enumerate(files):
        if n >= FOLDER_SCAN_LIMIT:
            return False
        found = detect(f)
        if found is not None and found is not module:
            return True
    return False


def read_all(paths: Iterable[Path], report: ImportReport) -> Iterator[ImportedConversation]:
    errors = report.errors
    for path in paths:
        if not path.exists():
            errors.append(f"{path}: no such file or folder")
            continue
        for source, module in _sources(path):
            if module is None and source == path:
                errors.append(f"{source}: not a transcript format this program reads")
                continue
            if module is None:
                report.skipped_files.append(f"{source}: not a transcript; skipped")
                continue
            try:
                yield from module.read(source)
            except FormatError as e:
                errors.append(str(e))


def import_paths(
    store: Store, paths: Iterable[Path],
    progress: Callable[[ImportOutcome], None] | None = None,
) -> ImportReport:
    report = ImportReport()
    for ic in read_all(paths, report):
        outcome = store.import_conversation(ic)
        report.conversations.append(outcome)
        if progress:
            progress(outcome)
    return report
