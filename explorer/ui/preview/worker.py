"""Running slow work off the main thread, where only the newest request counts.

Planning a compaction renders snapshot pages, which may take a noticeable
fraction of a second on a long conversation; the window must stay responsive
and must never show a plan for options the person has already changed. So a
:class:`LatestRunner` numbers every request, cancels the older ones (a job checks
its flag between stages), drops any result that is not the newest, and waits
for its threads when it shuts down so nothing runs after its window is gone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtGui import QImage

from explorer.app import compacting
from explorer.app.compacting import Shape
from explorer.compaction.context import CompactionPlan
from explorer.compaction.summary import render_message
from explorer.store import Store
from explorer.tree.model import Message


class Cancelled(Exception):
    """The request was superseded or the runner shut down; its result is not wanted."""


class Ticket:
    """What a job sees of its request: its number, progress reports and the cancel flag."""

    def __init__(self, serial: int, emit: Callable[[int, str], None]) -> None:
        self.serial = serial
        self._emit = emit
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def step(self, stage: str) -> None:
        """Report the stage about to start; stop here if the request was superseded."""
        if self._cancel.is_set():
            raise Cancelled
        self._emit(self.serial, stage)


Job = Callable[[Ticket], Any]


class _Signals(QObject):
    """Lives on the main thread, so signals a worker emits arrive there, queued."""

    progress = Signal(int, str)
    done = Signal(int, object)
    failed = Signal(int, object)


class _Run(QRunnable):
    def __init__(self, job: Job, ticket: Ticket, signals: _Signals) -> None:
        super().__init__()
        self.job, self.ticket, self.signals = job, ticket, signals

    def run(self) -> None:
        if self.ticket.cancelled:
            return
        try:
            result = self.job(self.ticket)
        except Cancelled:
            return
        except Exception as e:  # shown inline by the window; the thread must not die loudly
            if not self.ticket.cancelled:
                self.signals.failed.emit(self.ticket.serial, e)
            return
        if not self.ticket.cancelled:
            self.signals.done.emit(self.ticket.serial, result)


class LatestRunner(QObject):
    """Runs jobs on a private pool; only the newest request's progress and outcome are emitted.

    ``finished(result)`` and ``failed(exception)`` fire at most once per request and
    never for a superseded one. ``shutdown()`` cancels everything and waits.
    """

    started = Signal(int)
    progress = Signal(str)
    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None, threads: int = 2) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(threads)
        self._signals = _Signals()
        self._signals.progress.connect(self._on_progress)
        self._signals.done.connect(self._on_done)
        self._signals.failed.connect(self._on_failed)
        self._serial = 0
        self._pending: dict[int, Ticket] = {}
        self._closed = False

    @property
    def busy(self) -> bool:
        """True while the newest request has not finished or failed."""
        return self._serial in self._pending

    @property
    def serial(self) -> int:
        """The newest request's number (0 before the first)."""
        return self._serial

    def submit(self, job: Job) -> int:
        """Start ``job`` and supersede every older request; returns the new request's number."""
        if self._closed:
            raise RuntimeError("the runner was shut down")
        self.cancel()
        self._serial += 1
        ticket = Ticket(self._serial, self._signals.progress.emit)
        self._pending[ticket.serial] = ticket
        self.pool.start(_Run(job, ticket, self._signals))
        self.started.emit(ticket.serial)
        return ticket.serial

    def cancel(self) -> None:
        """Cancel every request still running; none of them will report."""
        for ticket in self._pending.values():
            ticket.cancel()
        self._pending.clear()

    def shutdown(self) -> None:
        """Cancel everything and wait for the threads: nothing runs after this returns."""
        self._closed = True
        self.cancel()
        self.pool.clear()
        self.pool.waitForDone()

    def wait(self, msecs: int = -1) -> bool:
        """Block until the pool is idle (used by tests and benchmarks)."""
        return bool(self.pool.waitForDone(msecs))

    def _current(self, serial: int) -> bool:
        return not self._closed and serial == self._serial and serial in self._pending

    def _on_progress(self, serial: int, stage: str) -> None:
        if self._current(serial):
            self.progress.emit(stage)

    def _on_done(self, serial: int, result: object) -> None:
        if self._current(serial):
            del self._pending[serial]
            self.finished.emit(result)

    def _on_failed(self, serial: int, error: object) -> None:
        if self._current(serial):
            del self._pending[serial]
            self.failed.emit(error)


@dataclass(frozen=True, eq=False)
class PreviewResult:
    """A plan and everything the window shows of it, prepared off the main thread."""

    shape: Shape
    rung: str | None
    plan: CompactionPlan
    record: dict[str, Any]
    images: tuple[QImage, ...]
    head_text: str
    tail_text: str


def decode_png(data: bytes) -> QImage:
    """The image exactly as the PNG holds it (a null image if it is not one)."""
    image = QImage()
    image.loadFromData(data, "PNG")
    return image


def messages_text(messages: Sequence[Message]) -> str:
    """Messages as the transcript text a summary request would quote (images as markers)."""
    return "\n\n".join(render_message(m) for m in messages)


def build_preview(
    store: Store, conv_id: int, shape: Shape, rung: str | None, ticket: Ticket | None = None,
) -> PreviewResult:
    """Plan the compaction and decode its pages from their own PNG bytes."""
    step = ticket.step if ticket is not None else (lambda _stage: None)
    step("planning")
    plan = compacting.plan(store, conv_id, shape, rung)
    step("measuring")
    record = plan.to_record()
    images: list[QImage] = []
    for i, page in enumerate(plan.pages):
        step(f"decoding page {i + 1} of {len(plan.pages)}")
        image = decode_png(page.png)
        if image.isNull():
            raise ValueError(f"page {i + 1} is not a readable PNG")
        images.append(image)
    split = plan.split
    return PreviewResult(
        shape=shape, rung=rung, plan=plan, record=record, images=tuple(images),
        head_text=messages_text(split.head) if split else "",
        tail_text=messages_text(split.tail) if split else "",
    )
