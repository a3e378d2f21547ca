"""Model calls from the window: send a prompt, run an edited one, ask for another answer.

One job: start the call on the window's task runner, stream its answer into the
command bar, say what was stored (only a complete answer is) or why nothing was,
and cancel on request. It is given what it works with when it is made, so it does
not reach into the window; the views refresh through the runner's ``changed``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from explorer.store import Store
from explorer.ui.background.tasks import TaskRunner
from explorer.ui.calls.worker import Call, ModelJob, regenerate_call, rerun_call, send_call
from explorer.ui.window.command_bar import CommandBar

if TYPE_CHECKING:
    from explorer.app.calls.conversation_ops import RunResult

Ask = Callable[[str, str, str], str | None]  # title, label, default → text or None


class ModelCalls:
    def __init__(self, tasks: TaskRunner, store: Store, bar: CommandBar,
                 conversation: Callable[[], int | None], redact: Callable[[], bool],
                 ask: Ask, fail: Callable[[str], None], parent: QObject) -> None:
        self.tasks, self.store, self.bar = tasks, store, bar
        self._conversation, self._redact = conversation, redact
        self._ask, self._fail, self._parent = ask, fail, parent
        self.job: ModelJob | None = None  # the call running, or the last one
        self.streamed = ""

    def send(self, text: str) -> None:
        conv = self._conversation()
        if conv is None or not text.strip():
            return
        self._start(send_call(conv, text), f"sending to the model: {text[:60]}")

    def rerun(self, mid: int) -> None:
        conv = self._conversation()
        if conv is None:
            return
        text = self._ask("Edit and run", "The edited prompt (the original and its answer stay):",
                         self.store.message(mid).text)
        if text:
            self._start(rerun_call(conv, mid, text), "running the edited prompt")

    def regenerate(self, mid: int) -> None:
        conv = self._conversation()
        if conv is not None:
            self._start(regenerate_call(conv, mid), "asking for another answer")

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def _start(self, call: Call, what: str) -> None:
        if self.job is not None and self.job.is_running():
            self._fail("a model call is already running; cancel it first (Esc)")
            return
        from explorer.app.calls.model_setup import ModelChoice  # loaded with the first call

        bar = self.bar
        bar.show()
        bar.show_result(what + "…\n")
        job = ModelJob(self.tasks, self.store, call, ModelChoice(redact=self._redact()),
                       parent=self._parent)
        self.streamed = ""

        def chunk(text: str) -> None:
            self.streamed += text
            bar.show_result(what + "…\n\n" + self.streamed)

        job.chunk.connect(chunk)
        job.done.connect(self._done)
        job.failed.connect(lambda message: bar.show_error(f"nothing was stored: {message}"))
        self.job = job
        job.start()

    def _done(self, result: RunResult) -> None:
        notes = "".join(f"\nnote: {n}" for n in result.notes)
        self.bar.show_result(f"{result.answer.text}\n\n(stored as messages "
                             f"{', '.join(map(str, result.message_ids))}){notes}")
