"""Replay after an edit and ask several models, in the window (T8).

Both run ``explorer.app``'s use-cases (the ones ``convo replay`` and ``convo fanout``
run) on the window's task runner: the plan is estimated off the main thread and
shown before anything is sent; each step or answer reports progress in the command
bar; Esc anywhere in the window, the status bar's Cancel button, closing the bar or
closing the window cancels. A cancelled or failed
replay keeps every finished turn and still refreshes the views; the answers of a
fan-out open side by side in the compare view. Each run is one undoable operation.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QPushButton

from explorer.store import StoreError
from explorer.tree.errors import ExplorerError, error_line
from explorer.ui.background.tasks import Task, Ticket
from explorer.ui.calls.worker import CHANGES, describe
from explorer.ui.tending.view import Asks, RunView

if TYPE_CHECKING:  # replay, fan-out and the model calls (compaction, estimator) load when used
    from explorer.app.calls import fanout as fanning
    from explorer.app.calls import replay as replaying
    from explorer.ui.calls.run_dialogs import FanoutRequest

OpenCompare = Callable[[list[int]], object]


class TendRuns:
    def __init__(self, view: RunView, asks: Asks, open_compare: OpenCompare) -> None:
        self.view = view
        self.asks = asks
        self.open_compare = open_compare  # where a fan-out's answers open side by side
        self.task: Task | None = None
        self.cancel_event = threading.Event()
        self.progress: list[str] = []  # what the command bar showed, step by step
        self.dialog: QDialog | None = None
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("cancel_run")
        self.cancel_button.setToolTip("Stop the running replay or model calls (Esc); "
                                      "finished turns are kept")
        self.cancel_button.clicked.connect(self.cancel_running)
        view.statusBar().addWidget(self.cancel_button)
        self.cancel_button.hide()

    # -- questions (replaced in tests) ------------------------------------------------
    def confirm_replay(self, plan: replaying.ReplayPlan, model: str | None) -> bool:
        from explorer.ui.calls.run_dialogs import ReplayDialog

        self.dialog = ReplayDialog(plan, model, self.view.window())
        return self.dialog.exec() == QDialog.DialogCode.Accepted

    def ask_fanout(self, models: str, text: str = "") -> FanoutRequest | None:
        from explorer.ui.calls.run_dialogs import FanoutDialog

        dialog = FanoutDialog(models, text, self.view.window())
        self.dialog = dialog
        return dialog.request() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def handlers(self) -> dict[str, Callable[..., None]]:
        """Right-click entries: replay onto the clicked edit; ask several models (the
        clicked prompt's text filled in)."""
        return {"replay": self.replay, "fanout": self._fanout_from}

    def _fanout_from(self, mid: int) -> None:
        message = self.view.store.message(mid)
        self.fanout(message.text if message.is_prompt else "")

    # -- state ----------------------------------------------------------------------------
    def running(self) -> bool:
        job = self.view.model_job
        return (self.task is not None and self.task.running) or (
            job is not None and job.is_running())

    def cancel(self) -> None:
        self.cancel_event.set()

    def cancel_running(self) -> bool:
        """Esc or Cancel from anywhere in the window: stop what runs (a replay, a fan-out, a
        model call); False when nothing was running, so Esc can mean something else."""
        if not self.running():
            return False
        self.cancel()
        job = self.view.model_job
        if job is not None:
            job.cancel()
        self.cancel_button.setEnabled(False)
        self._say("cancelling… (finished turns are kept)")
        return True

    def _busy(self) -> bool:
        if self.running():
            self.asks.fail("a model call is already running; cancel it first "
                                 "(Esc or Cancel)")
            return True
        return False

    def _say(self, line: str) -> None:
        self.progress.append(line)
        self.view.command_bar.show()
        self.view.command_bar.show_result("\n".join(self.progress))

    def _start(self, job: object, on_done: object, what: str, cancel: threading.Event) -> None:
        self.cancel_event = cancel
        self.progress = []
        self._say(what + "… (Esc cancels)")
        self.cancel_button.setEnabled(True)
        self.cancel_button.show()
        self.task = self.view.tasks.run(
            job, on_done=on_done,  # type: ignore[arg-type]
            on_failed=lambda e: self.view.command_bar.show_error(describe(e)),
            on_progress=lambda line: self._say(str(line)), refresh=CHANGES)
        self.task.ended.connect(self.cancel_button.hide)

    # -- replay -----------------------------------------------------------------------------
    def replay(self, mid: int) -> None:
        """Replay the branch the edited prompt ``mid`` replaced, or the branch through the
        stale answer ``mid`` onto the edit it waits for: plan, confirm, run."""
        if self._busy():
            return
        from explorer.app.calls import replay as replaying
        from explorer.app.calls.model_setup import ModelChoice

        store = self.view.store
        try:
            tip, onto = replaying.replay_source(store, mid)
            target = ModelChoice().target()
        except (ExplorerError, ValueError) as e:
            self.asks.fail(error_line(e) if isinstance(e, ExplorerError) else str(e))
            return
        self.view.tasks.run(
            lambda _t: replaying.plan_replay(store, tip, onto, target.estimator(), target.model),
            on_done=lambda plan: self._confirmed(plan, target.model),
            on_failed=lambda e: self.asks.fail(describe(e)))

    def _confirmed(self, plan: replaying.ReplayPlan, model: str | None) -> None:
        if not plan.steps:
            self.asks.tell("Replay", "no later prompt to replay")
            return
        if self._busy() or not self.confirm_replay(plan, model):
            return
        store = self.view.store
        cancel = threading.Event()
        redact = self.view.redaction.on  # the window's switch (R1)

        def job(ticket: Ticket) -> replaying.ReplayOutcome:
            from explorer.app.calls import replay as replaying
            from explorer.app.calls.model_setup import ModelChoice, prepare

            prepared = prepare(ModelChoice(redact=redact), cancel=cancel)

            def step(i: int, n: int, s: replaying.ReplayStep) -> None:
                ticket.report(f"step {i + 1}/{n}: {' '.join(s.text.split())[:70]}")
            return replaying.replay(store, plan, prepared.provider, prepared.options, step, cancel)

        self._start(job, self._replayed, f"replaying {len(plan.steps)} step(s)", cancel)

    def _replayed(self, outcome: replaying.ReplayOutcome) -> None:
        if outcome.change is not None:
            self._say(f"{outcome.change.summary} — Edit → Undo removes it")
        if outcome.error:
            self.view.command_bar.show_error(f"{outcome.error} (finished turns are kept)")

    # -- fan-out ----------------------------------------------------------------------------
    def default_models(self) -> str:
        from explorer.app.calls.model_setup import ModelChoice

        try:
            target = ModelChoice().target()
        except ValueError:
            return ""
        return f"{target.kind.value}:{target.model}"

    def fanout(self, text: str = "") -> None:
        """Ask for the prompt and the models, then ask them all at once."""
        conv = self.view.conversation_id
        if conv is None or self._busy():
            return
        request = self.ask_fanout(self.default_models(), text)
        if request is None:
            return
        store = self.view.store
        cancel = threading.Event()
        redact = self.view.redaction.on  # the window's switch (R1)

        def job(ticket: Ticket) -> fanning.FanoutResult:
            from explorer.app.calls import fanout as fanning
            from explorer.app.calls.model_setup import ModelChoice, SetupError, prepare

            targets = []
            for spec in request.models:
                kind, _, model = spec.partition(":")
                try:
                    prepared = prepare(ModelChoice(kind=kind, model=model, redact=redact),
                                       cancel=cancel)
                except SetupError as e:
                    raise StoreError(f"{spec}: {e} (nothing was sent)") from e
                targets.append(fanning.Target(spec, prepared.provider, prepared.options))

            def answered(a: fanning.FanoutAnswer) -> None:
                done = f"message {a.answer_id}" if a.answer_id else f"failed: {a.error}"
                ticket.report(f"{a.label} #{a.sample + 1}: {done}")
            return fanning.fanout(store, conv, request.text, targets, request.samples, answered)

        runs = len(request.models) * request.samples
        self._start(job, self._fanned_out, f"asking {runs} model run(s)", cancel)

    def _fanned_out(self, result: fanning.FanoutResult) -> None:
        self._say(f"{result.change.summary} — Edit → Undo removes them")
        answers = [a.answer_id for a in result.answers if a.answer_id is not None]
        if len(answers) >= 2:
            self.open_compare(answers)
