"""Keeping a long path the transcript had to read, once the window has settled (V2).

The first open of a big conversation that changed since its path was kept (a followed
session grew, a branch was taken) reads the path's skeleton again: a second of a core for
100,000 messages. Kept in the file, the next open reads it in one row
(:mod:`explorer.app.kept.paths`). Packing and writing it costs 20–30 MB for a moment, so
it is not done while the window opens but ``KEEP_AFTER_MS`` after the path came in, when
no view is reading, on a worker of its own; the store's writer refuses it if the
conversation changed meanwhile. A conversation that keeps changing (a followed session)
is kept again only once in a while (:mod:`explorer.app.kept.pace`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from explorer.app.kept import pace as keep_pace
from explorer.app.kept import paths as kept_paths
from explorer.store import Store
from explorer.store.reads_path import PathColumns
from explorer.ui.background.tasks import LatestRunner

KEEP_AFTER_MS = 3000


class PathKeeper(QObject):
    """Keeps the last long path offered, later, while ``busy()`` is False."""

    def __init__(self, store: Store, busy: Callable[[], bool],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.busy = store, busy
        self.runner = LatestRunner(self, threads=1, name="transcript-keep")
        self.timer = QTimer(self, singleShot=True, interval=KEEP_AFTER_MS)
        self.timer.timeout.connect(self._keep)
        self._offered: tuple[kept_paths.Unkept, PathColumns] | None = None

    def offer(self, unkept: kept_paths.Unkept | None, columns: PathColumns) -> None:
        """The path just shown, and whether it was read rather than found kept."""
        self._offered = None if unkept is None else (unkept, columns)
        if self._offered is None:
            self.timer.stop()
        else:
            self.timer.start()

    @property
    def pending(self) -> bool:
        return self._offered is not None or self.runner.busy

    def _keep(self) -> None:
        if self._offered is None:
            return
        if self.busy():  # the window is reading: later
            self.timer.start()
            return
        unkept, columns = self._offered
        self._offered = None
        if not keep_pace.take(self.store.db_path, unkept.conv_id,
                              kept_paths.KIND):  # a followed session
            return
        self.runner.submit(lambda _t: kept_paths.keep_read(self.store, unkept, columns))

    def shutdown(self) -> None:
        """Drop what was not kept yet and wait for a keep under way."""
        self._offered = None
        self.timer.stop()
        self.runner.wait()
        self.runner.shutdown()
