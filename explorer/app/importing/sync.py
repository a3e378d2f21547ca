"""Importing what changed since the last sync, incrementally (S1).

For each unit (see :mod:`explorer.app.importing.sources`) the store remembers size, mtime
and how far it was read. An unchanged unit is skipped without a single write. A
JSON Lines session that only grew (the bytes before the old offset are the ones
read last time) is read from that offset: only the appended lines are parsed.
Anything else (a file rewritten, truncated, or in a format that cannot be read
from the middle) is read whole and merged by ids, so nothing is stored twice.
An unreadable file is named in the report and skipped.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.handed_back import relinked
from explorer.app.importing.sources import Unit, find_sources
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import finish, preview_title
from explorer.formats.importer import Capabilities
from explorer.formats.registry import formats
from explorer.formats.tailing import Cursor, TailUnplaceable
from explorer.store import Store, StoreError
from explorer.store.import_writes import ImportOutcome
from explorer.store.sync_writes import NeedsWholeRead, SyncRecord

_HASH_SPAN = 4096
CHANGED = "changed"
"""The key, in a sync record's cursor, of a database's ``read_changed`` cursor."""


@dataclass
class SyncReport:
    unchanged: int = 0
    appended: int = 0  # units read from where the last sync stopped
    reread: int = 0  # units read whole and merged by ids
    added_messages: int = 0
    conversations: set[int] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the sync repaired or skipped, in the words of ``convo import``."""

    def to_dict(self) -> dict[str, Any]:
        return {"unchanged": self.unchanged, "appended": self.appended, "reread": self.reread,
                "added_messages": self.added_messages,
                "conversations": sorted(self.conversations), "errors": self.errors,
                "notes": self.notes}

    def absorb(self, outcomes: Iterable[ImportOutcome | StoreError], where: str) -> None:
        for outcome in outcomes:
            if isinstance(outcome, StoreError):
                self.errors.append(f"{where}: {outcome}")
            else:
                self.added_messages += outcome.added
                if outcome.added:
                    self.conversations.add(outcome.conversation_id)
                self.notes.extend(outcome.note_lines())


@dataclass(frozen=True)
class Signature:
    size: int
    mtime_ns: int
    count: int = 1  # files in a folder unit


def signature(unit: Unit) -> Signature:
    """Size and newest mtime of a file, or of every file in a folder unit."""
    if unit.size is not None and unit.mtime_ns is not None:
        return Signature(unit.size, unit.mtime_ns)
    path = unit.path
    if not path.is_dir():
        st = path.stat()
        return Signature(st.st_size, st.st_mtime_ns)
    size = newest = count = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            st = os.stat(os.path.join(folder, name))
            size, newest, count = size + st.st_size, max(newest, st.st_mtime_ns), count + 1
    return Signature(size, newest, count)


def tail_hash(path: Path, offset: int) -> str:
    """A digest of the file's start and of the bytes just before ``offset``.

    Unchanged when the file only grew; a file rewritten or replaced changes it
    (a session is rewritten from its start, and the offset must still fall just
    after a newline).
    """
    with path.open("rb") as handle:
        head = handle.read(min(offset, _HASH_SPAN))
        start = max(0, offset - _HASH_SPAN)
        handle.seek(start)
        window = handle.read(offset - start)
    if window and not window.endswith(b"\n"):
        return "not at a line end"
    return hashlib.sha1(head + b"\0" + window).hexdigest()


def sync_units(store: Store, units: Iterable[Unit], report: SyncReport | None = None,
               cancel: Callable[[], bool] | None = None) -> SyncReport:
    store.require_writable()  # before any session is read
    report = report if report is not None else SyncReport()
    records = store.sync_records()
    batch = Batch(store, report)
    try:
        for unit in units:
            if cancel is not None and cancel():
                break
            try:
                _sync_one(store, unit, records.get(str(unit.path)), report, batch)
            except OSError as exc:
                report.errors.append(f"{unit.path}: cannot be read "
                                     f"({exc.strerror or exc}); skipped")
    finally:
        batch.flush()  # what was read is whole sessions: stored even when cancelled
    return report


class Batch:
    """Whole re-reads waiting to be stored together: small sessions share a transaction
    (a first sync of thousands paid a commit and a wait for the writer each), a big one
    goes alone. A batch the writer refuses is stored file by file, so one bad file never
    takes the others with it."""

    MESSAGES = 4000
    FILES = 64

    def __init__(self, store: Store, report: SyncReport) -> None:
        self.store, self.report = store, report
        self.files: list[tuple[list[ImportedConversation], SyncRecord, str]] = []
        self.messages = 0

    def add(self, convs: list[ImportedConversation], rec: SyncRecord, where: str) -> None:
        self.files.append((convs, rec, where))
        self.messages += sum(len(c.messages) for c in convs)
        if self.messages >= self.MESSAGES or len(self.files) >= self.FILES:
            self.flush()

    def flush(self) -> None:
        files, self.files, self.messages = self.files, [], 0
        if len(files) == 1:
            convs, rec, where = files[0]
            self.report.absorb(self.store.sync_import(convs, rec), where)
            return
        if not files:
            return
        try:
            done = self.store.sync_import_many([(c, r) for c, r, _ in files])
        except Exception:  # stored one by one: the failing file says what it is
            for convs, rec, where in files:
                try:
                    self.report.absorb(self.store.sync_import(convs, rec), where)
                except Exception as exc:
                    self.report.errors.append(f"{where}: could not be stored ({exc})")
            return
        for (_, _, where), outcomes in zip(files, done, strict=True):
            self.report.absorb(outcomes, where)


def sync_sources(store: Store, env: Environment | None = None,
                 only: set[str] | None = None) -> SyncReport:
    """Sync every session of the tools found (all of them, or those named in ``only``)."""
    report = SyncReport()
    units: list[Unit] = []
    for found in find_sources(env, only):
        report.errors.extend(found.problems)
        units.extend(found.units)
    return sync_units(store, units, report)


def _sync_one(store: Store, unit: Unit, rec: SyncRecord | None, report: SyncReport,
              batch: Batch) -> None:
    sig = signature(unit)
    if rec is not None and rec.size == sig.size and rec.mtime_ns == sig.mtime_ns and (
            unit.size is not None or rec.offset == sig.count):
        report.unchanged += 1
        return
    module = formats()[unit.fmt]
    if module.changes is not None:
        batch.flush()  # what waits is stored first: the writes keep the units' order
        if _read_changed(store, module, unit, sig, rec, report):
            return
    tailing = module.tail is not None and module.tail.can_tail(unit.path)
    if (tailing and rec is not None and rec.cursor is not None and sig.size >= rec.offset
            and tail_hash(unit.path, rec.offset) == rec.tail_hash):
        cursor = Cursor.from_json(rec.cursor)
        batch.flush()
        if cursor is not None and _append(store, module, unit, sig, cursor, report):
            return
    _read_whole(store, module, unit, sig, tailing, report, batch)


def _read_changed(store: Store, module: Capabilities, unit: Unit, sig: Signature,
                  rec: SyncRecord | None, report: SyncReport) -> bool:
    """A database of sessions (OpenCode, llm): read only the sessions that changed since
    the cursor the last sync left (``read_changed``); False when the format has no such
    read for this path."""
    if module.changes is None:
        return False
    since = rec.cursor.get(CHANGED) if rec is not None and rec.cursor else None
    try:
        found = module.changes.read_changed(unit.path, since if isinstance(since, dict) else None)
    except FormatError as exc:
        report.errors.append(str(exc))
        report.reread += 1
        store.sync_import([], _record(unit, sig, None))
        return True
    if found is None:
        return False
    convs, cursor = found
    if since is None:
        report.reread += 1
    else:
        report.appended += 1
    record = _record(unit, sig, None)
    record.cursor = {CHANGED: cursor}
    convs = [relinked(store, c) for c in convs]  # a hand-back imported into OpenCode (H1)
    report.absorb(store.sync_import(convs, record), str(unit.path))
    return True


def _append(store: Store, module: Capabilities, unit: Unit, sig: Signature, cursor: Cursor,
            report: SyncReport) -> bool:
    assert module.tail is not None  # only a tailing format has a cursor
    try:
        tail = module.tail.read_tail(unit.path, cursor)
    except TailUnplaceable:
        return False
    rec = _record(unit, sig, tail.cursor)
    try:
        outcome = store.sync_append(tail.conversation, rec)
    except NeedsWholeRead:
        return False
    report.appended += 1
    report.absorb([outcome], str(unit.path))
    return True


def _read_whole(store: Store, module: Capabilities, unit: Unit, sig: Signature, tailing: bool,
                report: SyncReport, batch: Batch) -> None:
    cursor: Cursor | None = None
    try:
        if tailing and module.tail is not None:
            tail = module.tail.read_tail(unit.path, None)
            cursor = tail.cursor
            found = tail.conversation
            convs = [_finished(found, unit.path)] if found.messages else []
            if not found.messages and found.notes:
                report.errors.append(f"{unit.path}: nothing readable ({found.notes[0]})")
        else:
            convs = list(module.importer.read(unit.path))
    except FormatError as exc:
        report.errors.append(str(exc))
        convs = []
    report.reread += 1
    convs = [relinked(store, c) for c in convs]  # a hand-back the agent continued (H1)
    batch.add(convs, _record(unit, sig, cursor), str(unit.path))


def _finished(conv: ImportedConversation, path: Path) -> ImportedConversation:
    conv.title = conv.title or preview_title(conv.messages, conv.source_id or path.stem)
    return finish(conv, conv.tip if conv.tip is not None else conv.messages[-1].id)


def _record(unit: Unit, sig: Signature, cursor: Cursor | None) -> SyncRecord:
    if unit.size is None and unit.path.is_dir():
        return SyncRecord(str(unit.path), unit.fmt, sig.size, sig.mtime_ns, sig.count)
    offset = cursor.offset if cursor is not None else sig.size
    return SyncRecord(
        str(unit.path), unit.fmt, sig.size, sig.mtime_ns, offset,
        cursor.to_json() if cursor is not None else None,
        tail_hash(unit.path, offset) if cursor is not None else None, time.time())


def watch(store: Store, env: Environment | None, only: set[str] | None, interval: float,
          on_report: Callable[[SyncReport], None], stop: Callable[[], bool]) -> None:
    """Sync again every ``interval`` seconds until ``stop()``; report only what is new."""
    seen: set[str] = set()
    while not stop():
        report = sync_sources(store, env, only)
        report.errors = [e for e in report.errors if e not in seen]
        seen.update(report.errors)
        if report.added_messages or report.errors:
            on_report(report)
        deadline = time.monotonic() + interval
        while not stop() and time.monotonic() < deadline:
            time.sleep(min(0.1, interval))
