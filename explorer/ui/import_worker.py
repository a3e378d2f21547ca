"""Importing on a worker thread, so the window keeps painting while a large file is read.

The worker only reads and stores; everything it has to say travels back as
signals, which Qt queues onto the main thread. Cancel sets a flag the import
asks between conversations, so a cancelled import never leaves half a
conversation behind (each conversation is one transaction).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QThread, Signal, Slot

from explorer.app.importing import ImportProgress, ImportReport, import_paths
from explorer.store import Store


class _ImportWorker(QObject):
    """Lives on the worker thread; talks only through its signals."""

    progressed = Signal(object)  # ImportProgress
    done = Signal(object)  # ImportReport

    def __init__(self, store: Store, paths: Sequence[Path], cancelled: threading.Event) -> None:
        super().__init__()
        self._store = store
        self._paths = list(paths)
        self._cancelled = cancelled

    @Slot()
    def run(self) -> None:
        report = ImportReport()
        try:
            import_paths(self._store, self._paths, progress=self.progressed.emit,
                         cancel=self._cancelled.is_set, report=report)
        except Exception as e:  # a reader's bug must end the import, not hang the dialog
            report.errors.append(f"the import stopped: {type(e).__name__}: {e}")
        self.done.emit(report)


class ImportJob(QObject):
    """One import of some paths on its own thread.

    ``progressed`` carries :class:`ImportProgress`; ``finished`` carries the
    :class:`ImportReport` and is emitted once the thread has ended, so a
    receiver may delete the job or start another at once.
    """

    progressed = Signal(object)
    finished = Signal(object)

    def __init__(self, store: Store, paths: Sequence[Path], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.paths = [Path(p) for p in paths]
        self.report: ImportReport | None = None
        self.last_progress: ImportProgress | None = None
        self._cancelled = threading.Event()
        self._thread = QThread(self)
        self._thread.setObjectName("explorer-import")
        self._worker = _ImportWorker(store, self.paths, self._cancelled)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        self._worker.progressed.connect(self._on_progress)
        self._worker.done.connect(self._on_done)
        self._thread.finished.connect(self._worker.deleteLater)

    def start(self) -> None:
        if self._thread.isRunning() or self.report is not None:
            raise RuntimeError("an import job runs once")
        self._thread.start()

    def cancel(self) -> None:
        """Ask the import to stop after the conversation it is storing (safe from any thread)."""
        self._cancelled.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancelled.is_set()

    def is_running(self) -> bool:
        return self._thread.isRunning()

    def wait(self, msecs: int = -1) -> bool:
        """Block until the thread ends (for shutdown); True when it has."""
        if msecs < 0:
            return self._thread.wait()
        return self._thread.wait(msecs)

    @Slot(object)
    def _on_progress(self, progress: ImportProgress) -> None:
        self.last_progress = progress
        self.progressed.emit(progress)

    @Slot(object)
    def _on_done(self, report: ImportReport) -> None:
        self.report = report
        self._thread.quit()
        self._thread.wait()  # the worker has returned: this only lets the thread's loop end
        self.finished.emit(report)
