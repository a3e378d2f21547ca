"""Importing files, folders and zips: detect, read as a stream, store one conversation a time.

Each conversation is written in one transaction, so a failure or a cancel
leaves nothing half-imported; the report says what was added, repaired and
skipped. Progress is measured in bytes of input so a caller can show how far
a large import has gone before the first conversation is stored.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from explorer.app.importing import fill_ahead
from explorer.app.importing.collector import collector_paused
from explorer.app.importing.handed_back import relinked
from explorer.app.importing.plan import input_size, plan_sources
from explorer.app.importing.unzip import Unpacker, unpacked
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.importer import Importer
from explorer.formats.jsonl import read_progress
from explorer.formats.registry import capabilities
from explorer.formats.text_repair import repair_surrogates
from explorer.store import Store, StoreError
from explorer.store.import_writes import ImportOutcome
from explorer.store.writer import DiskFull


@dataclass
class ImportReport:
    conversations: list[ImportOutcome] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped_files: list[str] = field(default_factory=list)
    cancelled: bool = False

    @property
    def added_messages(self) -> int:
        return sum(c.added for c in self.conversations)

    @property
    def present_messages(self) -> int:
        return sum(c.already_present for c in self.conversations)

    def to_dict(self) -> dict[str, Any]:
        return {
            "conversations": [asdict(c) for c in self.conversations],
            "errors": self.errors,
            "skipped_files": self.skipped_files,
            "added_messages": self.added_messages,
            "cancelled": self.cancelled,
        }


@dataclass(frozen=True)
class ImportProgress:
    """How far an import has gone; ``bytes_done`` reaches ``bytes_total`` at the end."""

    bytes_done: int
    bytes_total: int
    messages_done: int
    conversations_done: int
    current_file: str


ProgressHook = Callable[[ImportProgress], None]
CancelCheck = Callable[[], bool]


class ConversationWrites(Protocol):
    """Where an import stores its batches: the store, or the window's store seen from the
    process that reads for it (:mod:`explorer.app.importing.child`)."""

    def import_conversations(
        self, conversations: list[ImportedConversation], cancel: CancelCheck | None = None,
    ) -> list[ImportOutcome | StoreError]: ...

def _read(
    source: Path, module: Importer, report: ImportReport
) -> Generator[ImportedConversation, None, None]:
    """The conversations of one source, repaired for storing; a failure is reported and
    ends this source only, never the import."""
    try:
        for ic in module.read(source):
            repair_surrogates(ic)
            yield ic
    except FormatError as e:
        report.errors.append(str(e))
    except _StopReading:  # a cancel, not a failure of this file
        raise
    except Exception as e:  # an importer bug or odd bytes: one bad file never stops the rest
        report.errors.append(f"{source}: could not be read ({type(e).__name__}: {e}); "
                             "the other files are imported")


def read_all(paths: Iterable[Path], report: ImportReport) -> Iterator[ImportedConversation]:
    for source, module in plan_sources(paths, report):
        if module is not None:
            yield from _read(source, module, report)


class _Meter:
    """Counts bytes and messages and passes them to the progress hook.

    Bytes advance per file: a whole source when it is done, inside a folder
    each file a conversation names as its source, as it is stored, and inside
    a line-based file as its lines are read.
    """

    def __init__(self, total: int, hook: ProgressHook | None) -> None:
        self.total = total
        self.hook = hook
        self.done_before = 0  # bytes of finished sources
        self.in_source = 0  # bytes counted inside the current source
        self.source_size = 0
        self.passes = 1  # 2: a big file read light, its content again as it is stored
        self.seen: set[str] = set()
        self.messages = 0
        self.writing = 0  # messages of the batch being written, so far
        self.conversations = 0
        self.current = ""

    def start(self, source: Path, module: Importer | None = None) -> None:
        self.current = str(source)
        self.source_size = input_size(source)
        self.in_source = 0
        two_pass = capabilities(module).two_pass if module is not None else None
        self.passes = 2 if two_pass is not None and two_pass.reads_twice(source) else 1
        self.seen.clear()
        self.emit()

    def written(self, ic: ImportedConversation, count: int) -> None:
        """A chunk of ``ic``'s messages was written: a file read twice moves the bar through
        its second half by the share of its messages written."""
        self.writing += count
        if self.passes == 2 and ic.messages:
            half = self.source_size // 2
            self.in_source = max(self.in_source, half + half * self.writing // len(ic.messages))
            self.in_source = min(self.in_source, self.source_size)
        self.emit()

    def stored(self, ic: ImportedConversation, outcome: ImportOutcome) -> None:
        self.conversations += 1
        self.messages += outcome.added + outcome.already_present
        path = ic.source_path
        if path and path not in self.seen and path != self.current:
            self.seen.add(path)
            self.in_source = min(self.source_size, self.in_source + input_size(Path(path)))
        self.emit()

    def reading(self, done: int) -> None:
        """Bytes read so far inside the current file (a single big session moves the bar)."""
        done //= self.passes
        if done > self.in_source:
            self.in_source = min(self.source_size, done)
            self.emit()

    def finish(self) -> None:
        self.done_before += self.source_size
        self.in_source = self.source_size = 0
        self.emit()

    def emit(self) -> None:
        if self.hook is not None:
            done = min(self.total, self.done_before + self.in_source)
            self.hook(ImportProgress(done, self.total, self.messages + self.writing,
                                     self.conversations, self.current))


BATCH_CONVERSATIONS = 64
CONTENT_ERRORS = (UnicodeError, OverflowError, sqlite3.DataError, sqlite3.InterfaceError,
                  sqlite3.ProgrammingError)
BATCH_MESSAGES = 20_000
BATCH_CHARS = 8_000_000  # parsed text held before a write: bounds an import's memory


class _Batch:
    """Conversations waiting to be written together (one commit for many small ones)."""

    def __init__(self, store: ConversationWrites, report: ImportReport, meter: _Meter,
                 cancel: CancelCheck) -> None:
        self.store, self.report, self.meter, self.cancel = store, report, meter, cancel
        self.pending: list[ImportedConversation] = []
        self.messages = 0
        self.chars = 0

    def add(self, ic: ImportedConversation) -> None:
        if isinstance(self.store, Store):  # a hand-back the agent continued comes back (H1)
            ic = relinked(self.store, ic)
            fill_ahead.when_huge(ic)
        ic.written = lambda count: self.meter.written(ic, count)
        self.pending.append(ic)
        self.messages += len(ic.messages)
        self.chars += sum(p.size for m in ic.messages for p in m.parts)
        if (len(self.pending) >= BATCH_CONVERSATIONS or self.messages >= BATCH_MESSAGES
                or self.chars >= BATCH_CHARS):
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        try:
            results = self._store_all()
        finally:
            # The progress hook names its conversation: left set, the two would hold each
            # other, and a conversation with all its messages would wait for the collector
            # (paused during a window's import, so every one stayed until the end and the
            # first collection after walked them all at once).
            for ic in self.pending:
                ic.written = None
            fill_ahead.done(self.pending)  # their reading processes end here
        if len(results) < len(self.pending):
            self.report.cancelled = True
        self.meter.writing = 0  # counted again as stored, below
        for ic, result in zip(self.pending, results, strict=False):
            if isinstance(result, StoreError):
                where = ic.source_path or ic.title or "a conversation"
                self.report.errors.append(f"{where}: {result}")
            else:
                self.report.conversations.append(result)
                self.meter.stored(ic, result)
        self.pending, self.messages, self.chars = [], 0, 0

    def _store_all(self) -> list[ImportOutcome | StoreError]:
        """The batch in one write; if content makes the write fail (text SQLite cannot
        encode, a number too large), each conversation alone, so the one that cannot be
        stored is reported and the others are kept. Other failures (the disk) end the
        import as before."""
        try:
            return self.store.import_conversations(self.pending, self.cancel)
        except CONTENT_ERRORS:  # the batch was rolled back: retried one by one below
            self.meter.writing = 0
        except DiskFull as e:  # ends the import: name what was not written
            names = ", ".join(repr(ic.title or ic.source_path or "untitled")
                              for ic in self.pending[:3])
            more = f" and {len(self.pending) - 3} more" if len(self.pending) > 3 else ""
            raise DiskFull(f"the disk is full: nothing of {names}{more} was written (what "
                           "was imported before it is kept); free space and import again"
                           ) from e
        results: list[ImportOutcome | StoreError] = []
        for ic in self.pending:
            if self.cancel():
                break
            try:
                results.extend(self.store.import_conversations([ic]))
            except CONTENT_ERRORS as e:  # named in the report; the import goes on
                results.append(StoreError(f"not stored ({type(e).__name__}: {e})"))
        return results


def import_paths(
    store: ConversationWrites, paths: Iterable[Path], progress: ProgressHook | None = None,
    cancel: CancelCheck | None = None, report: ImportReport | None = None,
) -> ImportReport:
    """Import every path; ``cancel`` is asked between conversations, never inside one.

    ``report`` may be given so a caller keeps what was done if reading fails.
    """
    report = report if report is not None else ImportReport()
    try:
        with collector_paused(), unpacked(list(paths), report.errors) as (sources, unpacker):
            return _import_all(store, sources, report, progress, cancel, unpacker)
    finally:
        fill_ahead.cool()


class _StopReading(Exception):
    """Raised inside a reader when the import is cancelled mid-file."""


def _reading_hook(meter: _Meter, stop: CancelCheck) -> Callable[[int], None]:
    def hook(done: int) -> None:
        if stop():
            raise _StopReading
        meter.reading(done)
    return hook


def _import_all(
    store: ConversationWrites, paths: list[Path], report: ImportReport,
    progress: ProgressHook | None,
    cancel: CancelCheck | None, unpacker: Unpacker,
) -> ImportReport:
    meter = _Meter(sum(input_size(p) for p in paths if p.exists()), progress)
    stop = cancel or (lambda: False)
    batch = _Batch(store, report, meter, stop)
    for source, module in plan_sources(paths, report, unpacker):
        if stop():
            report.cancelled = True
            break
        meter.start(source, module)
        if meter.passes == 2:  # its content filled ahead (here, or for a window's writer)
            fill_ahead.warm()
        if module is not None:
            token = read_progress.set(_reading_hook(meter, stop))
            try:
                with closing(_read(source, module, report)) as stream:
                    for ic in stream:
                        if stop() or report.cancelled:
                            report.cancelled = True
                            break
                        batch.add(ic)
            except _StopReading:
                report.cancelled = True
            finally:
                read_progress.reset(token)
        batch.flush()  # what was read before a cancel is stored whole
        if report.cancelled:
            break
        meter.finish()
    return report
