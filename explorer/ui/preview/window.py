"""The compaction preview: what a compaction would keep, image, and send (SPEC §5, §7).

Choose provider, model, window, tier and (optionally) a rung; the ladder plans
off the main thread and the window shows the verbatim start, the exact pages,
the fact sheet, the verbatim end and the cost of each part. The pages shown are
the plan's own PNG bytes, the ones ``Save pages…`` writes and the request carries.
A sentence over the plan says what it keeps and drops; Esc closes the window.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from explorer.app.context import compacting
from explorer.app.context.compacting import RUNGS
from explorer.app.targets import build_target, default_window
from explorer.compaction import image_cost
from explorer.compaction.ladder import LadderError
from explorer.compaction.page_geometry import DEFAULT_MODELS, TIERS
from explorer.compaction.target import PROVIDER_KINDS, ProviderKind, Target
from explorer.store import Store
from explorer.ui import file_dialogs
from explorer.ui.preview.plan_panes import PlanPanes
from explorer.ui.preview.probe_bench import ProbeBench
from explorer.ui.preview.redaction_option import RedactionOption
from explorer.ui.preview.worker import LatestRunner, PreviewResult, Ticket, build_preview
from explorer.ui.sharing.redaction_switch import RedactionSwitch

AUTO = "auto"
REPLAN_DELAY_MS = 120
ERROR_STYLE = "color: #c62828; font-weight: bold;"
SUMMARY_NEEDS_KEY = (
    "Summary needs a provider key and a network: it is the one rung that spends a model call, "
    "and no summarizer is configured for this preview ({error}). Snapshots need neither — "
    "choose “snapshot” to see the pages instead."
)


def model_choices(provider: str) -> list[str]:
    """The settings' model first, then the models the provider's image pricing knows."""
    known: dict[str, list[str]] = {
        "anthropic": list(image_cost.ANTHROPIC_HIGH_RES_MODELS),
        "openai": [*image_cost.OPENAI_TILE_MODELS, *image_cost.OPENAI_PATCH_MODELS],
        "gemini": ["gemini-2.5-pro", "gemini-3-pro-preview"],
    }
    first = build_target(provider).model or DEFAULT_MODELS.get(provider, "")
    return [first, *(m for m in known.get(provider, []) if m != first)]


class CompactionPreview(QWidget):
    """A top-level window previewing the compaction of one conversation's active context."""

    applied = Signal(int)  # the compaction record's id

    def __init__(self, store: Store, conv_id: int, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.store, self.conversation_id = store, conv_id
        self.result: PreviewResult | None = None
        self.error: str | None = None
        self._requested_rung: str | None = None
        self._pin_changes: list[tuple[str, bool]] = []  # written by the next plan's job (L8)
        self.runner = LatestRunner(self)
        self.runner.progress.connect(lambda stage: self._set_status(f"{stage}…"))
        self.runner.finished.connect(self._on_result)
        self.runner.failed.connect(self._on_failed)
        self._timer = QTimer(self, singleShot=True, interval=REPLAN_DELAY_MS)
        self._timer.timeout.connect(self.replan)
        self._build_options()
        self.tier_box.setCurrentText(build_target().tier)  # the settings' tier first
        self._build_body()
        self.setWindowTitle(f"Compaction preview · {store.conversation(conv_id).display_title}")
        self.resize(1280, 860)
        self._connect_options()
        self.replan()

    # -- layout -----------------------------------------------------------------
    def _build_options(self) -> None:
        first = build_target().kind  # the settings' provider first, as send uses it
        self.provider_box = QComboBox()
        self.provider_box.addItems([k.value for k in PROVIDER_KINDS])
        self.provider_box.setCurrentText(first.value)
        self.model_box = QComboBox()
        self.model_box.setEditable(True)
        self.model_box.addItems(model_choices(first))
        self.window_box = QSpinBox()
        self.window_box.setRange(1024, 100_000_000)
        self.window_box.setSingleStep(1000)
        self.window_box.setGroupSeparatorShown(True)
        self.window_box.setValue(default_window(first))
        self.tier_box = QComboBox()
        self.tier_box.addItems(list(TIERS))
        self.rung_box = QComboBox()
        self.rung_box.addItems([AUTO, *RUNGS])
        self.redaction = RedactionOption(self)
        self.options = QHBoxLayout()
        for label, w in (("Provider", self.provider_box), ("Model", self.model_box),
                         ("Window", self.window_box), ("Tier", self.tier_box),
                         ("Rung", self.rung_box)):
            self.options.addWidget(QLabel(label))
            self.options.addWidget(w)
        self.options.addWidget(self.redaction.box)
        self.options.addStretch(1)

    def _build_body(self) -> None:
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.panes = PlanPanes()
        self.save_button = QPushButton("Save pages…")
        self.apply_button = QPushButton("Apply")
        self.save_button.clicked.connect(self.save_pages)
        self.apply_button.clicked.connect(self.apply)
        self.bench = ProbeBench(self.store, self.conversation_id, self)
        self.bench.button.clicked.connect(lambda: self.bench.probe(self.target))
        self.bench.status.connect(self._set_status)
        self.panes.loss.pin_requested.connect(self.pin)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.bench.button)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.apply_button)
        layout = QVBoxLayout(self)
        layout.addLayout(self.options)
        layout.addWidget(self.redaction.warning)
        layout.addWidget(self.panes.summary)
        layout.addWidget(self.panes, 1)
        layout.addLayout(buttons)
        close = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.close)
        close.setContext(Qt.ShortcutContext.WindowShortcut)

    def _connect_options(self) -> None:
        self.provider_box.currentTextChanged.connect(self._provider_changed)
        self.model_box.currentTextChanged.connect(self.schedule_replan)
        self.window_box.valueChanged.connect(self.schedule_replan)
        self.tier_box.currentTextChanged.connect(self.schedule_replan)
        self.rung_box.currentTextChanged.connect(self.schedule_replan)
        self.redaction.changed.connect(self.schedule_replan)

    # -- options ----------------------------------------------------------------
    def _provider_changed(self, provider: str) -> None:
        """A new provider brings its own models and window size."""
        self.model_box.blockSignals(True)
        self.model_box.clear()
        self.model_box.addItems(model_choices(provider))
        self.model_box.blockSignals(False)
        self.window_box.blockSignals(True)
        self.window_box.setValue(default_window(provider))
        self.window_box.blockSignals(False)
        self.schedule_replan()

    def bind_redaction(self, switch: RedactionSwitch) -> None:
        """Follow the window's redaction switch (see :class:`RedactionOption`)."""
        self.redaction.bind(switch)

    def target(self) -> Target:
        """The target the options make over the settings: what ``send`` with the same
        provider, model, window and tier aims at."""
        model = self.model_box.currentText().strip() or None
        return build_target(ProviderKind.parse(self.provider_box.currentText()), model=model,
                            window=self.window_box.value(), tier=self.tier_box.currentText(),
                            redact=self.redaction.on)

    def rung(self) -> str | None:
        chosen = self.rung_box.currentText()
        return None if chosen == AUTO else chosen

    def set_options(self, *, provider: str | None = None, model: str | None = None,
                    window: int | None = None, tier: str | None = None,
                    rung: str | None = None) -> None:
        """Set any of the options as a person would; the plan follows."""
        if provider is not None:
            self.provider_box.setCurrentText(provider)
        if model is not None:
            self.model_box.setCurrentText(model)
        if window is not None:
            self.window_box.setValue(window)
        if tier is not None:
            self.tier_box.setCurrentText(tier)
        if rung is not None:
            self.rung_box.setCurrentText(rung)

    # -- planning ---------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """True until the plan for the current options is shown (or has failed)."""
        return self._timer.isActive() or self.runner.busy

    def schedule_replan(self) -> None:
        """Coalesce a burst of option changes (typing a window size) into one plan."""
        self._timer.start()

    def replan(self) -> None:
        """Plan again for the current options; a plan still running is superseded."""
        self._timer.stop()
        store, conv_id, rung = self.store, self.conversation_id, self.rung()
        try:
            target = self.target()
        except ValueError as e:
            self._on_failed(e)
            return

        changes, self._pin_changes = self._pin_changes, []

        def job(ticket: Ticket) -> PreviewResult:
            return build_preview(store, conv_id, target, rung, ticket, changes)

        self.apply_button.setEnabled(False)
        self.save_button.setEnabled(False)
        self._requested_rung = rung
        self.runner.submit(job)

    def _on_result(self, result: object) -> None:
        assert isinstance(result, PreviewResult)
        self.result, self.error = result, None
        self.panes.show_result(result)
        plan = result.plan
        self._set_status(f"{len(plan.pages)} page(s) · {result.record['tokens']['after']:,} "
                         f"tokens for {result.target.kind}")
        self.apply_button.setEnabled(True)
        self.save_button.setEnabled(True)

    def _on_failed(self, error: object) -> None:
        self.result = None
        if isinstance(error, LadderError) and self._requested_rung == "summary":
            self.error = SUMMARY_NEEDS_KEY.format(error=error)
        else:
            self.error = f"Cannot plan: {type(error).__name__}: {str(error)[:300]}"
        self.panes.show_result(None)
        self._set_status(self.error, error=True)

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(ERROR_STYLE if error else "")

    # -- actions ----------------------------------------------------------------
    def apply(self) -> int | None:
        """Record the shown plan on the tip; emits ``applied(record_id)``.

        A plan made before the tip moved describes another context, so it is not
        recorded: the preview plans again and says why.
        """
        if self.result is None:
            return None
        plan = self.result.plan
        try:
            now = compacting.active_context(self.store, self.conversation_id)
            if not plan.path or not now or plan.path[-1].id != now[-1].id:
                self.replan()
                self._set_status("The tip moved since this plan was made; planning again.",
                                 error=True)
                return None
            record_id = compacting.record(self.store, self.conversation_id, plan,
                                          self.result.target)
        except ValueError as e:  # StoreError is a ValueError
            self._set_status(f"Could not record the compaction: {e}", error=True)
            return None
        self._set_status(f"Recorded compaction {record_id} on the tip: the next send to "
                         f"{self.result.target.kind} {self.result.target.model} carries it.")
        self.applied.emit(record_id)
        return record_id

    def pin(self, texts: list[str], pin: bool = True) -> None:
        """Pin (or unpin) exact strings: written off the main thread by the next plan, which
        then carries them on its fact sheet (L8)."""
        self._pin_changes += [(t, pin) for t in texts]
        self._set_status(f"{'Pinning' if pin else 'Unpinning'} {len(texts)} string(s)…")
        self.replan()

    def probe(self) -> bool:
        """Send one prompt after the full and each rung's context (the test bench)."""
        return self.bench.probe(self.target)

    def ask_folder(self) -> Path | None:
        """Where ``Save pages…`` writes; ``None`` when the person cancels."""
        return file_dialogs.folder(self, "Save pages and request into")

    def save_pages(self) -> list[Path]:
        """Write the shown plan's PNG pages, request.json and plan.json into a chosen folder."""
        if self.result is None:
            return []
        folder = self.ask_folder()
        if folder is None:
            return []
        try:
            files = compacting.write_preview(self.result.plan, self.result.target, folder)
        except OSError as e:
            self._set_status(f"Could not save: {e}", error=True)
            return []
        self._set_status(f"Wrote {len(files)} file(s) to {folder}.")
        return files

    def shutdown(self) -> None:
        """Stop planning and wait for the worker threads."""
        self._timer.stop()
        self.runner.shutdown()
        self.bench.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

