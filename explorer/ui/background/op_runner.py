"""Operations run off the window's main thread, in the order they were asked (O1).

An operation's store work (a fork copying 5,000 messages, a delete moving 10,000 out of the
live tables) ran on the main thread and froze the window for as long as it took. Here it
runs on a thread of its own — one, so two operations asked in a row (archive, then undo)
are written in that order — and its outcome comes back to the main thread, where the views
are refreshed and the person is told. A failure goes to the ``failed`` callback, or, where
there is none, to the window's error bar (E1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QObject

from explorer.tree.errors import ExplorerError, error_line
from explorer.ui.background.tasks import Task, TaskRunner

T = TypeVar("T")
Refresh = Callable[[Any], None]


class OpRunner(QObject):
    def __init__(self, parent: QObject | None, refresh: Refresh) -> None:
        super().__init__(parent)
        self.tasks = TaskRunner(self, threads=1, name="explorer-operation")
        self._refresh = refresh
        self._running: list[Task] = []

    def run(self, what: str, work: Callable[[], T], done: Callable[[T], object],
            failed: Callable[[BaseException], object] | None = None,
            refresh: Callable[[T], Any] | None = None) -> Task | None:
        """Run ``work`` (the store operation) off the main thread; then refresh the views
        (with what ``refresh`` picks from the result: a conversation to open, None for the
        open one, False for none: the operation changed nothing in the store) and
        call ``done`` with the result, on the main thread. Nothing runs once the window
        has closed (a click queued behind the close is dropped)."""
        if self.tasks.closed:
            return None

        def finished(result: T) -> None:
            target = refresh(result) if refresh is not None else None
            if target is not False:  # False: nothing in the store changed (an export)
                self._refresh(target)
            done(result)

        task = self.tasks.run(lambda _ticket: work(), on_done=finished, on_failed=failed,
                              what=what)
        self._running.append(task)
        task.ended.connect(lambda t=task: self._running.remove(t))
        return task

    @property
    def busy(self) -> bool:
        return bool(self._running)

    def settle(self, msecs: int = 30_000) -> bool:
        """Wait (processing events) until every operation asked so far has told its outcome:
        for tests and for closing the window."""
        clock = QElapsedTimer()
        clock.start()
        while self._running and clock.elapsed() < msecs:
            self.tasks.wait(10)
            QCoreApplication.processEvents()
        return not self._running

    def shutdown(self) -> None:
        """The window closes: what was asked is still written, nothing more is started."""
        self.settle()
        self.tasks.shutdown()


def telling(tell: Callable[[str], object]) -> Callable[[BaseException], None]:
    """A failure handler for an operation: a refusal (``ExplorerError``) or a file error is
    told in one line through ``tell``; anything else is a bug, raised again for the error bar
    and the log (E1)."""

    def failed(error: BaseException) -> None:
        if not isinstance(error, ExplorerError | OSError):
            raise error
        lookup = isinstance(error, LookupError) and error.args
        tell(str(error.args[0]) if lookup else error_line(error))

    return failed
