"""Model calls through the window's task runner: text streams back as progress, Cancel stops it.

The turn is written by the use-case only after the answer completed (P2), so a
cancelled or failed call leaves the tree exactly as it was. Whatever the call
raises — not only the provider's own errors — ends the job with ``failed``, so
"sending…" can never stay on screen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from PySide6.QtCore import QObject, Signal

from explorer.store import Store
from explorer.tree.errors import ExplorerError, error_line
from explorer.ui.background.tasks import Task, TaskRunner, Ticket

if TYPE_CHECKING:  # the use-cases (and the compaction they may run) load with the first call
    from explorer.app.calls import conversation_ops as ops
    from explorer.app.calls.model_setup import ModelChoice
    from explorer.providers import Provider

Call: TypeAlias = "Callable[[Store, Provider, ops.RunOptions], ops.RunResult]"

CHANGES = frozenset({"conversations", "graph", "transcript", "context"})
"""What a stored turn changes: every view of the conversation."""

def describe(error: BaseException) -> str:
    """The program's own errors read as their one line; anything else names its type."""
    if isinstance(error, ExplorerError):
        return error_line(error)
    return f"{type(error).__name__}: {error}"


class ModelJob(QObject):
    """One send, rerun or regenerate: ``chunk`` while streaming, then ``done`` or ``failed``."""

    chunk = Signal(str)
    done = Signal(object)  # RunResult
    failed = Signal(str)

    def __init__(self, runner: TaskRunner, store: Store, call: Call,
                 choice: ModelChoice | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.store = store
        self.call = call
        if choice is None:
            from explorer.app.calls.model_setup import ModelChoice

            choice = ModelChoice()
        self.choice = choice
        self.task: Task | None = None
        # The provider's own flag, not the task's: a cancelled stream still reports
        # how it ended (and a turn stored just before the cancel still refreshes the views).
        self.cancel_event = threading.Event()

    def start(self) -> None:
        if self.task is not None:
            raise RuntimeError("a model job runs once")
        self.task = self.runner.run(
            self._run, on_done=self.done.emit, on_failed=lambda e: self.failed.emit(describe(e)),
            on_progress=lambda text: self.chunk.emit(str(text)), refresh=CHANGES)

    def _run(self, ticket: Ticket) -> ops.RunResult:
        from explorer.app.calls.model_setup import prepare

        self.store.require_writable()  # said before any key or model is looked up
        prepared = prepare(self.choice, on_text=ticket.report, cancel=self.cancel_event)
        return self.call(self.store, prepared.provider, prepared.options)

    def cancel(self) -> None:
        self.cancel_event.set()

    def is_running(self) -> bool:
        return self.task is not None and self.task.running

    def wait(self, msecs: int = -1) -> bool:
        """Block until the runner is idle (shutdown, tests)."""
        return self.runner.wait(msecs)


def send_call(conv_id: int, text: str) -> Call:
    from explorer.app.calls import conversation_ops as ops

    return lambda store, provider, options: ops.send(store, conv_id, text, provider, options)


def rerun_call(conv_id: int, mid: int, text: str) -> Call:
    from explorer.app.calls import conversation_ops as ops

    return lambda store, provider, options: ops.edit_and_run(
        store, conv_id, mid, text, provider, options)


def regenerate_call(conv_id: int, mid: int) -> Call:
    from explorer.app.calls import conversation_ops as ops

    return lambda store, provider, options: ops.regenerate(store, conv_id, mid, provider, options)
