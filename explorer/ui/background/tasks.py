"""One way to run background work: a callable off the main thread, its outcome back on it.

In the spirit of Anki's ``QueryOp``/``CollectionOp``: a job is a plain function of a
:class:`Ticket`; it runs on the runner's thread pool, may report progress and must
look at its ticket between steps (``ticket.check()``), so cancel answers quickly.
Jobs of the kinds a :class:`~explorer.ui.background.lane.Lane` orders (a conversation's open)
take turns there, and give way at their checks to a more urgent one (V2).
Its result, or whatever exception it raised (any ``Exception``, not a chosen few),
is delivered on the main thread through a :class:`Task`'s signals. Every failure is
logged with its traceback, and one that nobody handles (no ``on_failed``, nothing
connected to ``failed``) goes to the window's error bar (E1): no job fails silently.
A task that finished successfully a task that
finished successfully then asks the views it names to refresh (``changed``), so a
window reloads only what the job's writes touched. Nothing a job does reaches a
widget directly: every hand-over is a queued signal.

:class:`LatestRunner` is the same machinery for "only the newest request counts"
(the compaction plan, the context figure, the visible rows of the transcript).
"""

from __future__ import annotations

import contextlib
import threading
import warnings
import weakref
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from PySide6.QtCore import QMetaMethod, QObject, QRunnable, QThreadPool, Signal

from explorer.app import error_log
from explorer.ui.background import collector
from explorer.ui.background.lane import OPEN_LANE, Lane, Place


class Cancelled(Exception):
    """The request was cancelled or superseded; its result is not wanted."""


class Ticket:
    """What a job sees of its request: its number, progress reports and the cancel flag."""

    def __init__(self, serial: int, emit: Callable[[int, object], None]) -> None:
        self.serial = serial
        self._emit = emit
        self._cancel = threading.Event()
        self._lane: tuple[Lane, Place] | None = None  # set while the job is inside a lane

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def event(self) -> threading.Event:
        """The cancel flag itself, for code below the UI that waits on an Event."""
        return self._cancel

    def is_cancelled(self) -> bool:
        """The flag as a callable, for code below the UI that takes ``cancel=`` and asks it
        between steps (where a job in a lane also gives way to a more urgent one)."""
        return self._cancel.is_set() or not self._give_way()

    def check(self) -> None:
        """Stop here (raise :class:`Cancelled`) if the request was cancelled; in a lane,
        first let a more urgent job that waits run."""
        if self._cancel.is_set() or not self._give_way():
            raise Cancelled

    def _give_way(self) -> bool:
        return self._lane is None or self._lane[0].give_way(self._lane[1])

    def step(self, stage: str) -> None:
        """Report the stage about to start; stop here if the request was cancelled."""
        self.check()
        self._emit(self.serial, stage)

    def report(self, payload: object) -> None:
        """Report any progress value (delivered in order, on the main thread)."""
        self._emit(self.serial, payload)


Job = Callable[[Ticket], Any]


class Task(QObject):
    """The main thread's handle on one job: ``progressed`` then ``finished`` or ``failed``.

    ``ended`` fires once in every case (also after a cancel), when the job's thread
    has let go of it.
    """

    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(object)  # the exception
    ended = Signal()

    def __init__(self, ticket: Ticket, refresh: frozenset[str], parent: QObject | None,
                 what: str = "A background job") -> None:
        super().__init__(parent)
        self.ticket = ticket
        self.what = what
        self.handled: Callable[[], bool] = lambda: self.isSignalConnected(
            QMetaMethod.fromSignal(self.failed))
        self.refresh = refresh
        self.running = True
        self.result: object = None
        self.error: BaseException | None = None
        self.hold = collector.Hold()  # no full collection stalls the window meanwhile

    @property
    def serial(self) -> int:
        return self.ticket.serial

    def cancel(self) -> None:
        """Ask the job to stop; nothing but ``ended`` will be delivered after this."""
        self.ticket.cancel()


class _Bridge(QObject):
    """Lives on the main thread, so signals a worker emits arrive there, queued."""

    progress = Signal(int, object)
    done = Signal(int, object)
    failed = Signal(int, object)
    ended = Signal(int)


class _Run(QRunnable):
    def __init__(self, job: Job, ticket: Ticket, bridge: _Bridge,
                 lane: tuple[Lane, Place] | None) -> None:
        super().__init__()
        self.job, self.ticket, self.bridge, self.lane = job, ticket, bridge, lane

    def run(self) -> None:
        serial = self.ticket.serial
        try:
            if self.lane is not None and self.lane[0].enter(self.lane[1]):
                self.ticket._lane = self.lane
            if not self.ticket.cancelled:
                result = self.job(self.ticket)
                if not self.ticket.cancelled:
                    self.bridge.done.emit(serial, result)
        except Cancelled:
            pass
        except Exception as e:  # every failure reaches the window; the thread never dies loudly
            if not self.ticket.cancelled:
                self.bridge.failed.emit(serial, e)
        finally:
            self.ticket._lane = None
            if self.lane is not None:
                self.lane[0].leave(self.lane[1])
            self.bridge.ended.emit(serial)


class TaskRunner(QObject):
    """Runs jobs on a private pool and hands their outcome back on the main thread.

    ``changed(frozenset[str])`` names the views to refresh after a job that
    finished successfully was started with ``refresh=``. A job of a kind ``lane``
    orders (``lane_kind=``, or the runner's name) runs there, in turn.
    """

    changed = Signal(object)
    live: ClassVar[weakref.WeakSet[TaskRunner]] = weakref.WeakSet()

    def __init__(self, parent: QObject | None = None, threads: int = 2,
                 name: str = "explorer-task", lane: Lane = OPEN_LANE) -> None:
        super().__init__(parent)
        self.name = name
        self.lane = lane
        self._places: dict[int, Place] = {}
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(threads)
        self._bridge = _Bridge()
        self._bridge.progress.connect(self._on_progress)
        self._bridge.done.connect(self._on_done)
        self._bridge.failed.connect(self._on_failed)
        self._bridge.ended.connect(self._on_ended)
        self._serial = 0
        self._tasks: dict[int, Task] = {}
        self._closed = False
        TaskRunner.live.add(self)

    # -- starting and stopping --------------------------------------------------------
    def run(
        self, job: Job, *,
        on_done: Callable[[Any], object] | None = None,
        on_failed: Callable[[BaseException], object] | None = None,
        on_progress: Callable[[Any], object] | None = None,
        refresh: Iterable[str] = (),
        lane_kind: str | None = None,
        what: str | None = None,
    ) -> Task:
        """Start ``job``; the callbacks run on the main thread, in the order they happen.

        ``lane_kind`` (by default the runner's name) places it in the lane's order; ``what``
        names the job where its failure is told ("Reading the transcript failed: …")."""
        if self._closed:
            raise RuntimeError("the runner was shut down")
        self._serial += 1
        ticket = Ticket(self._serial, self._bridge.progress.emit)
        task = Task(ticket, frozenset(refresh), None,  # dropped when it ends
                    what or f"A background job ({self.name})")
        if on_done is not None:
            task.finished.connect(on_done)
        if on_failed is not None:
            task.failed.connect(on_failed)
        if on_progress is not None:
            task.progressed.connect(on_progress)
        self._tasks[ticket.serial] = task
        kind = lane_kind or self.name
        place = self.lane.join(kind, ticket) if kind in self.lane else None
        if place is not None:
            self._places[ticket.serial] = place
        self.pool.start(_Run(job, ticket, self._bridge,
                             (self.lane, place) if place is not None else None))
        return task

    @property
    def active(self) -> list[Task]:
        """Tasks whose thread has not let go of them yet."""
        return list(self._tasks.values())

    def cancel_all(self) -> None:
        for task in self._tasks.values():
            task.cancel()

    def shutdown(self) -> None:
        """Cancel everything and wait for the threads: nothing runs after this returns."""
        self._closed = True
        self.cancel_all()
        self.pool.clear()
        self.pool.waitForDone()
        for serial in list(self._tasks):
            self._on_ended(serial)

    @property
    def last_serial(self) -> int:
        """The newest task's number (0 before the first)."""
        return self._serial

    @property
    def closed(self) -> bool:
        return self._closed

    def wait(self, msecs: int = -1) -> bool:
        """Block until the pool is idle (tests, benchmarks, shutdown)."""
        return bool(self.pool.waitForDone(msecs))

    # -- delivery on the main thread --------------------------------------------------
    def _live(self, serial: int) -> Task | None:
        task = self._tasks.get(serial)
        return task if task is not None and not task.ticket.cancelled else None

    def _on_progress(self, serial: int, payload: object) -> None:
        task = self._live(serial)
        if task is not None:
            task.progressed.emit(payload)

    def _on_done(self, serial: int, result: object) -> None:
        task = self._live(serial)
        if task is None:
            return
        task.result = result
        task.running = False
        task.finished.emit(result)
        if task.refresh:
            self.changed.emit(task.refresh)

    def _on_failed(self, serial: int, error: object) -> None:
        task = self._live(serial)
        if task is None:
            return
        task.error = error if isinstance(error, BaseException) else RuntimeError(str(error))
        task.running = False
        error_log.report(f"{task.what} failed: {type(task.error).__name__}: "
                         f"{error_log.one_line(task.error)}", task.error, show=not task.handled())
        task.failed.emit(task.error)

    def _on_ended(self, serial: int) -> None:
        place = self._places.pop(serial, None)
        if place is not None:  # also a job the pool never ran (cleared at shutdown)
            self.lane.leave(place)
        task = self._tasks.pop(serial, None)
        if task is None:
            return
        task.running = False
        task.ended.emit()
        _let_go(task)
        task.hold.release()  # after ``ended``: what its receivers built is settled too


def _not_handled() -> bool:
    return False


def _let_go(task: Task) -> None:
    """Cut what keeps an ended task alive: nothing is delivered after ``ended``.

    Receivers connect lambdas that keep the task (``t=task``), and its own ``handled``
    does: cycles through Qt's connections that no collection sees, and the end of the
    busy work freezes whatever is alive then. Each ended task stayed for good with its
    result (a conversation list's 25,000 rows, 18 MB a refresh); cut, it goes when the
    last caller lets go of it."""
    with warnings.catch_warnings():  # a signal nobody connected "fails" to disconnect
        warnings.simplefilter("ignore", RuntimeWarning)
        for signal in (task.progressed, task.finished, task.failed, task.ended):
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect()
    task.handled = _not_handled


class LatestRunner(QObject):
    """A :class:`TaskRunner` where only the newest request's progress and outcome count.

    ``finished(result)`` and ``failed(exception)`` fire at most once per request and
    never for a superseded one. ``shutdown()`` cancels everything and waits.
    """

    started = Signal(int)
    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None, threads: int = 2,
                 name: str = "explorer-latest", lane: Lane = OPEN_LANE) -> None:
        super().__init__(parent)
        self.runner = TaskRunner(self, threads, name, lane)
        self._current: Task | None = None

    @property
    def pool(self) -> QThreadPool:
        return self.runner.pool

    @property
    def busy(self) -> bool:
        """True while the newest request has not finished or failed."""
        return self._current is not None

    @property
    def serial(self) -> int:
        """The newest request's number (0 before the first)."""
        return self.runner.last_serial

    def submit(self, job: Job) -> int:
        """Start ``job`` and supersede every older request; returns the new request's number."""
        self.cancel()
        task = self.runner.run(job, what=f"A background job ({self.runner.name})")
        task.handled = lambda: self.isSignalConnected(QMetaMethod.fromSignal(self.failed))
        task.progressed.connect(lambda p, t=task: self._progress(t, p))
        task.finished.connect(lambda r, t=task: self._deliver(t, r, self.finished))
        task.failed.connect(lambda e, t=task: self._deliver(t, e, self.failed))
        task.ended.connect(lambda t=task: self._forget(t))
        self._current = task
        self.started.emit(task.serial)
        return task.serial

    def cancel(self) -> None:
        """Cancel the running request; it will not report."""
        if self._current is not None:
            self._current.cancel()
            self._current = None

    def shutdown(self) -> None:
        self.cancel()
        self.runner.shutdown()

    def wait(self, msecs: int = -1) -> bool:
        return self.runner.wait(msecs)

    def _forget(self, task: Task) -> None:
        """A job that stopped itself (raised Cancelled) reports nothing but is no longer busy."""
        if task is self._current:
            self._current = None

    def _progress(self, task: Task, payload: object) -> None:
        if task is self._current:
            self.progress.emit(payload)

    def _deliver(self, task: Task, value: object, signal: Any) -> None:
        if task is self._current:
            self._current = None
            signal.emit(value)
