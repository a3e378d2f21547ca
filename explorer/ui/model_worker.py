"""Model calls on a worker thread: text streams back through signals, Cancel stops the stream.

The turn is written by the use-case only after the answer completed (P2), so a
cancelled or failed call leaves the tree exactly as it was.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QThread, Signal

from explorer.app import conversation_ops as ops
from explorer.app.model_setup import ModelChoice, SetupError, prepare
from explorer.compaction.ladder import LadderError
from explorer.providers import Provider, ProviderError
from explorer.store import Store, StoreError

Call = Callable[[Store, Provider, ops.RunOptions], ops.RunResult]


class ModelJob(QThread):
    """One send, rerun or regenerate: ``chunk`` while streaming, then ``done`` or ``failed``."""

    chunk = Signal(str)
    done = Signal(object)  # RunResult
    failed = Signal(str)

    def __init__(self, store: Store, call: Call, choice: ModelChoice | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.call = call
        self.choice = choice or ModelChoice()
        self.cancel_event = threading.Event()

    def cancel(self) -> None:
        self.cancel_event.set()

    def run(self) -> None:
        try:
            prepared = prepare(self.choice, on_text=self.chunk.emit, cancel=self.cancel_event)
            result = self.call(self.store, prepared.provider, prepared.options)
        except (SetupError, ProviderError, LadderError, StoreError, ValueError) as e:
            self.failed.emit(str(e))
            return
        self.done.emit(result)


def send_call(conv_id: int, text: str) -> Call:
    return lambda store, provider, options: ops.send(store, conv_id, text, provider, options)


def rerun_call(conv_id: int, mid: int, text: str) -> Call:
    return lambda store, provider, options: ops.edit_and_run(
        store, conv_id, mid, text, provider, options)


def regenerate_call(conv_id: int, mid: int) -> Call:
    return lambda store, provider, options: ops.regenerate(store, conv_id, mid, provider, options)
