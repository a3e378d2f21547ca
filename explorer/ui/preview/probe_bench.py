"""The preview's "Probe…" button: the same next prompt sent after the full context and after
the previewed rungs' contexts, with a recall quiz, off the main thread
(``explorer.app.calls.probe``).

The answers are stored as archived probe branches; ``probed`` hands their ids to the main
window, which opens them side by side in the compare view. The costs and recall scores are
shown on the preview's status line.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QPushButton, QWidget

from explorer.app.calls import probe
from explorer.app.calls.model_setup import ModelChoice, prepare
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.tree.errors import error_line
from explorer.ui.background.tasks import TaskRunner, Ticket

RUNGS = ("full", "shake", "snapshot")
QUIZ_QUESTIONS = 6


class ProbeBench(QObject):
    probed = Signal(list)  # the probe answers' ids, for the compare view
    status = Signal(str, bool)  # text, is an error

    def __init__(self, store: Store, conv_id: int, parent: QWidget) -> None:
        super().__init__(parent)
        self.store, self.conversation_id = store, conv_id
        self.owner = parent
        self.button = QPushButton("Probe…")
        self.button.setToolTip("Send one prompt after the full context and after each rung's, "
                               "with a recall quiz; the answers open side by side")
        self.runner = TaskRunner(self, threads=1, name="explorer-probe")
        self.result: probe.ProbeResult | None = None

    def ask_text(self) -> str | None:
        """The prompt to probe with (replaced in tests)."""
        text, ok = QInputDialog.getMultiLineText(
            self.owner, "Probe the compaction", "Prompt to send after each context:")
        return text if ok and text.strip() else None

    def choice(self, target: Target) -> ModelChoice:
        """The model to ask: the previewed provider, model, window and tier."""
        return ModelChoice(kind=target.kind.value, model=target.model, window=target.window,
                           tier=target.tier, max_tokens=target.output_reserve,
                           redact=target.redactor is not None)

    def probe(self, target: Callable[[], Target]) -> bool:
        """Probe the previewed target; options that make no target are said on the status."""
        try:
            return self.start(target())
        except ValueError as e:
            self.status.emit(f"Cannot probe: {e}", True)
            return False

    def start(self, target: Target) -> bool:
        text = self.ask_text()
        if text is None:
            return False
        store, conv, choice = self.store, self.conversation_id, self.choice(target)

        def job(_ticket: Ticket) -> probe.ProbeResult:
            prepared = prepare(choice)
            return probe.probe(store, conv, text, prepared.provider, prepared.options,
                               RUNGS, quiz_size=QUIZ_QUESTIONS)

        self.button.setEnabled(False)
        self.status.emit(f"Probing {', '.join(RUNGS)} with a {QUIZ_QUESTIONS}-question recall "
                         "quiz…", False)
        self.runner.run(job, on_done=self._done, on_failed=self._failed)
        return True

    def _done(self, result: object) -> None:
        assert isinstance(result, probe.ProbeResult)
        self.result = result
        self.button.setEnabled(True)
        self.status.emit(summary_line(result), False)
        ids = result.answer_ids()
        if len(ids) >= 2:
            self.probed.emit(ids[:4])

    def _failed(self, error: BaseException) -> None:
        self.button.setEnabled(True)
        self.status.emit(f"Probe failed: {error_line(error)}", True)

    def shutdown(self) -> None:
        self.runner.shutdown()


def summary_line(result: probe.ProbeResult) -> str:
    """Per rung: the context's tokens, the measured input, and the recall score."""
    bits: list[str] = []
    for rung in dict.fromkeys(r.rung for r in result.runs):
        runs = [r for r in result.runs if r.rung == rung]
        skipped = next((r.skipped for r in runs if r.skipped), None)
        if skipped:
            bits.append(f"{rung}: skipped ({skipped})")
            continue
        measured = sum(int(r.usage.get("input_tokens") or 0) for r in runs)
        score = next((r.score for r in runs if r.score), None)
        recall = (f", recall {len(score.right)}/{score.asked} ({score.outcome_line}): "
                  f"{score.kinds_line}" if score else "")
        bits.append(f"{rung}: {runs[0].context_tokens:,} tokens ({measured:,} measured"
                    f"{recall})")
    return "Probes stored as archived branches · " + " · ".join(bits)
