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

    @property
    def added_messages(self) -> int:
        return sum(c.added for c in self.conversations)

    def to_dict(self) -> dict[str, Any]:
        return {
            "conversations": [asdict(c) for c in self.conversations],
            "errors": self.errors,
            "added_messages": self.added_messages,
        }


def _sources(path: Path) -> Iterator[tuple[Path, Any]]:
    """(path, importer or None): a folder no importer claims is searched inside."""
    module = detect(path)
    if module is not None or not path.is_dir():
        yield path, module
        return
    for child in sorted(path.iterdir()):
        if not child.name.startswith("."):
            yield from _sources(child)


def read_all(paths: Iterable[Path], errors: list[str]) -> Iterator[ImportedConversation]:
    for path in paths:
        if not path.exists():
            errors.append(f"{path}: no such file or folder")
            continue
        for source, module in _sources(path):
            if module is None:
                errors.append(f"{source}: not a transcript format this program reads; skipped")
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
    for ic in read_all(paths, report.errors):
        outcome = store.import_conversation(ic)
        report.conversations.append(outcome)
        if progress:
            progress(outcome)
    return report
