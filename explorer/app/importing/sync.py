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

import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from explorer.app.importing import fill_ahead, whole_read
from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.collector import collector_paused
from explorer.app.importing.handed_back import relinked
from explorer.app.importing.read_pool import ReadPool, worker_count
from explorer.app.importing.sources import find_sources
from explorer.app.importing.units import Unit
from explorer.app.importing.whole_read import (
    Signature,
    WholeRead,
    read_whole,
    signature,
    tail_hash,
)
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.importer import Capabilities
from explorer.formats.registry import formats
from explorer.formats.tailing import Cursor, TailUnplaceable
from explorer.store import Store, StoreError
from explorer.store.import_writes import ImportOutcome
from explorer.store.sync_writes import NeedsWholeRead, SyncRecord

log = logging.getLogger(__name__)
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
    cancelled: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"unchanged": self.unchanged, "appended": self.appended, "reread": self.reread,
                "added_messages": self.added_messages,
                "conversations": sorted(self.conversations), "errors": self.errors,
                "notes": self.notes, "cancelled": self.cancelled}

    def absorb(self, outcomes: Iterable[ImportOutcome | StoreError], where: str) -> None:
        for outcome in outcomes:
            if isinstance(outcome, StoreError):
                self.errors.append(f"{where}: {outcome}")
            else:
                self.added_messages += outcome.added
                if outcome.added:
                    self.conversations.add(outcome.conversation_id)
                self.notes.extend(outcome.note_lines())


class SyncProgress(NamedTuple):
    """How far a sync is: units looked at of all, and their bytes (a tuple: one a unit)."""

    done: int
    total: int
    bytes_done: int
    bytes_total: int
    path: str


ProgressHook = Callable[[SyncProgress], None]
POOL_MIN = 16
"""First reads a sync must have before reading processes pay for their start."""
POOL_BYTES = 8 << 20
"""Files this large are read by the sync itself (light, their content when written)."""


def sync_units(store: Store, units: Iterable[Unit], report: SyncReport | None = None,
               cancel: Callable[[], bool] | None = None,
               progress: ProgressHook | None = None) -> SyncReport:
    store.require_writable()  # before any session is read
    report = report if report is not None else SyncReport()
    units = list(units)
    # Many sessions: the collector waits for the end (a sync of 2,000 sessions spent 4 s
    # in it). One file (a followed session's poll, twice a second beside a window) is too
    # little work to take the whole process's collector away.
    with collector_paused() if len(units) > 1 else contextlib.nullcontext():
        return _sync_all(store, units, report, cancel, progress)


def _sync_all(store: Store, units: Iterable[Unit], report: SyncReport,
              cancel: Callable[[], bool] | None, progress: ProgressHook | None) -> SyncReport:
    records = store.sync_records()
    plan = _signed(units, report)
    jobs = [(u, s) for u, s in plan if u.where not in records and _poolable(u, s)]
    workers = worker_count() if len(jobs) >= POOL_MIN else 0
    pool = ReadPool(jobs, workers) if workers else None
    batch = Batch(store, report)
    total, done = sum(s.size for _, s in plan), 0
    try:
        for n, (unit, sig) in enumerate(plan):
            if cancel is not None and cancel():
                report.cancelled = True
                break
            path = unit.where
            if records.unchanged(path, sig.size, sig.mtime_ns,
                                 None if unit.size is not None else sig.files):
                report.unchanged += 1
            else:
                try:
                    _sync_one(store, unit, sig, records.get(path), report, batch, pool)
                except OSError as exc:
                    report.errors.append(f"{unit.path}: cannot be read "
                                         f"({exc.strerror or exc}); skipped")
            done += sig.size
            if progress is not None:
                progress(SyncProgress(n + 1, len(plan), done, total, unit.where))
    finally:
        batch.flush()  # what was read is whole sessions: stored even when cancelled
        if pool is not None:
            pool.close()
    return report


def _signed(units: Iterable[Unit], report: SyncReport) -> list[tuple[Unit, Signature]]:
    plan = []
    for unit in units:
        try:
            plan.append((unit, signature(unit)))
        except OSError as exc:
            report.errors.append(f"{unit.path}: cannot be read ({exc.strerror or exc}); skipped")
    return plan


def _poolable(unit: Unit, sig: Signature) -> bool:
    """A file small enough to be read whole in another process (read for the first time)."""
    return (unit.size is not None and sig.size < POOL_BYTES
            and formats()[unit.fmt].changes is None)


class Batch:
    """Whole re-reads waiting to be stored together: small sessions share a transaction
    (a first sync of thousands paid a commit and a wait for the writer each), a big one
    goes alone. One batch is stored while the next is read. A batch the writer refuses is
    stored file by file, so one bad file never takes the others with it."""

    MESSAGES = 4000
    FILES = 64

    def __init__(self, store: Store, report: SyncReport) -> None:
        self.store, self.report = store, report
        self.files: list[_Read] = []
        self.messages = 0
        self.sent: tuple[list[_Read], Future[list[list[ImportOutcome | StoreError]]]] | None \
            = None

    def add(self, convs: list[ImportedConversation], rec: SyncRecord, where: str) -> None:
        for ic in convs:  # a huge session's content filled by reading processes
            fill_ahead.when_huge(ic)
        self.files.append((convs, rec, where))
        self.messages += sum(len(c.messages) for c in convs)
        if self.messages >= self.MESSAGES or len(self.files) >= self.FILES:
            self._send()

    def flush(self) -> None:
        """Store what waits and wait until the writer has stored it."""
        self._send()
        self._wait()

    def _send(self) -> None:
        files, self.files, self.messages = self.files, [], 0
        if not files:
            return
        self._wait()
        if len(files) == 1:
            convs, rec, where = files[0]
            try:
                self.report.absorb(self.store.sync_import(convs, rec), where)
            finally:
                fill_ahead.done(convs)
            return
        try:
            future = self.store.sync_import_many_later([(c, r) for c, r, _ in files])
        except Exception as exc:  # refused at once: as when it fails in the writer
            future = Future()
            future.set_exception(exc)
        self.sent = (files, future)

    def _wait(self) -> None:
        if self.sent is None:
            return
        files, future = self.sent
        self.sent = None
        try:
            done = future.result()
        except Exception:  # stored one by one: the failing file says what it is
            for convs, rec, where in files:
                try:
                    self.report.absorb(self.store.sync_import(convs, rec), where)
                except Exception as exc:
                    self.report.errors.append(f"{where}: could not be stored ({exc})")
            return
        finally:
            fill_ahead.done([ic for convs, _, _ in files for ic in convs])
        for (_, _, where), outcomes in zip(files, done, strict=True):
            self.report.absorb(outcomes, where)


_Read = tuple[list[ImportedConversation], SyncRecord, str]


def sync_sources(store: Store, env: Environment | None = None,
                 only: set[str] | None = None, cancel: Callable[[], bool] | None = None,
                 progress: ProgressHook | None = None) -> SyncReport:
    """Sync every session of the tools found (all of them, or those named in ``only``)."""
    report = SyncReport()
    units: list[Unit] = []
    for found in find_sources(env, only):
        report.errors.extend(found.problems)
        units.extend(found.units)
    return sync_units(store, units, report, cancel, progress)


def _sync_one(store: Store, unit: Unit, sig: Signature, rec: SyncRecord | None,
              report: SyncReport, batch: Batch, pool: ReadPool | None) -> None:
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
    got = pool.take(unit) if pool is not None and pool.has(unit) else None
    if isinstance(got, OSError):
        raise got
    if isinstance(got, Exception):  # a reader's bug there: read here, and said in the log
        log.warning("a reading process could not read %s (%s); read here instead",
                    unit.path, got)
    if not isinstance(got, WholeRead):  # not read by the pool, or its reader failed there
        try:
            got = read_whole(unit, sig)
        except OSError:
            raise
        except Exception as exc:  # a reader's bug: this file is named, the others go on
            report.errors.append(f"{unit.path}: could not be read "
                                 f"({type(exc).__name__}: {exc}); skipped")
            return
    report.errors.extend(got.errors)
    report.reread += 1
    convs = [relinked(store, c) for c in got.conversations]  # a continued hand-back (H1)
    batch.add(convs, got.record, str(unit.path))


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
        store.sync_import([], whole_read.record(unit, sig, None))
        return True
    if found is None:
        return False
    convs, cursor = found
    if since is None:
        report.reread += 1
    else:
        report.appended += 1
    record = whole_read.record(unit, sig, None)
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
    rec = whole_read.record(unit, sig, tail.cursor)
    try:
        outcome = store.sync_append(tail.conversation, rec)
    except NeedsWholeRead:
        return False
    report.appended += 1
    report.absorb([outcome], str(unit.path))
    return True


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
