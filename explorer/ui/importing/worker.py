"""Importing through a task runner, so the window keeps painting while a large file is read.

The files are read in a child process (:mod:`explorer.app.importing.child` says why) and
the rows it makes are written by the store's one writer. Everything the import has to
say travels back as progress and the final report, which the runner delivers on the main
thread. Cancel sets a flag the import asks between conversations (and the child at every
progress step), so a cancelled import never leaves half a conversation behind (each
conversation is one transaction).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from explorer.app import error_log
from explorer.app.graph.turn_process import CHILD_MIN_MESSAGES, prepare_in_child
from explorer.app.importing.collector import collector_paused as paused_collector
from explorer.app.importing.process import import_in_child
from explorer.app.importing.run import ImportProgress, ImportReport
from explorer.app.kept.prepared import child_ready, handed_paths
from explorer.store import Store
from explorer.tree.errors import ExplorerError, error_line
from explorer.ui.background.tasks import Task, TaskRunner, Ticket

CHANGES = frozenset({"conversations"})
"""An import adds conversations; the open one is reloaded only if it grew."""


_quiet = 0
_quiet_lock = threading.Lock()
_switch_before = 0.0

IMPORT_SWITCH_S = 0.001
"""How long a thread may hold the GIL while another waits for it, during an import
(Python's default is 5 ms): the window's thread gets it back within a millisecond of
asking instead of after the import's next 5 ms of parsing."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic garbage collection (:mod:`explorer.app.importing.collector`), and short
    turns at the GIL, while an import runs.

    Each automatic collection during an import walks millions of objects while holding
    the GIL, which froze the window for 150–400 ms at a time. The switch interval is
    process-wide too: the first import to start shortens it, the last to end puts back
    what was there before.
    """
    global _quiet, _switch_before
    with _quiet_lock:
        _quiet += 1
        if _quiet == 1:
            _switch_before = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch_before, IMPORT_SWITCH_S))
    try:
        with paused_collector():
            yield
    finally:
        with _quiet_lock:
            _quiet -= 1
            if _quiet == 0:
                sys.setswitchinterval(_switch_before)


class ImportJob(QObject):
    """One import of some paths.

    ``progressed`` carries :class:`ImportProgress`; ``finished`` carries the
    :class:`ImportReport` and is emitted once the worker has let go of the job,
    so a receiver may delete the job or start another at once.
    """

    progressed = Signal(object)
    finished = Signal(object)

    def __init__(self, store: Store, paths: Sequence[Path], parent: QObject | None = None,
                 runner: TaskRunner | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.paths = [Path(p) for p in paths]
        self.report: ImportReport | None = None
        self.last_progress: ImportProgress | None = None
        self.runner = runner or TaskRunner(self, threads=1, name="explorer-import")
        self.task: Task | None = None
        # Our own flag, not the task's: a cancelled import still reports what it stored.
        self._cancelled = threading.Event()

    def start(self) -> None:
        if self.task is not None:
            raise RuntimeError("an import job runs once")
        self.task = self.runner.run(self._run, on_progress=self._on_progress,
                                    on_done=self._on_done)
        self.task.ended.connect(self._on_ended)

    def _run(self, ticket: Ticket) -> ImportReport:
        report = ImportReport()
        with child_ready(self.paths, prepares=True):
            try:
                with collector_paused():
                    import_in_child(self.store, self.paths, progress=ticket.report,
                                    cancel=self._cancelled.is_set, report=report)
            except ExplorerError as e:  # a refusal (a read-only or full disk): its line
                report.errors.append(f"the import stopped: {error_line(e)}")
            except Exception as e:  # a reader's bug must end the import, not hang the dialog
                report.errors.append(error_log.report(  # the dialog says it; the log keeps all
                    f"the import stopped: {type(e).__name__}: {error_log.one_line(e)}", e,
                    show=False).summary)
            self._prepare(report, ticket)
        return report

    def _prepare(self, report: ImportReport, ticket: Ticket) -> None:
        """Derive and keep the views of the big conversations the import brought, as
        ``convo import`` does, so that their first open reads them instead (a few seconds
        for a 100,000-message session, in a child process). Cancel skips what is left."""
        added = [c for c in report.conversations if c.added]
        big = [c.conversation_id for c in added
               if c.added + c.already_present >= CHILD_MIN_MESSAGES]
        if not big or self._cancelled.is_set():
            return
        last = self.last_progress
        total = last.bytes_total if last is not None else 0
        ticket.report(ImportProgress(
            total, total, report.added_messages, len(report.conversations),
            f"Preparing {_count(len(big), 'big conversation')} for a fast first open…"))
        self.store.writes_done()
        prepare_in_child(self.store.db_path, big, self._cancelled.is_set,
                         handed_paths(self.store, big))

    def cancel(self) -> None:
        """Ask the import to stop after the conversation it is storing (safe from any thread)."""
        self._cancelled.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancelled.is_set()

    def is_running(self) -> bool:
        return self.task is not None and self.task.running

    def wait(self, msecs: int = -1) -> bool:
        """Block until the worker is idle (for shutdown); True when it is."""
        return self.runner.wait(msecs)

    def _on_progress(self, progress: object) -> None:
        if isinstance(progress, ImportProgress):
            self.last_progress = progress
            self.progressed.emit(progress)

    def _on_done(self, report: ImportReport) -> None:
        self.report = report

    def _on_ended(self) -> None:
        if self.report is not None:
            self.finished.emit(self.report)


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}" + ("" if n == 1 else "s")
