"""The questions before a replay or a fan-out: what it will cost, which models to ask.

A replay shows every step with its estimated tokens and cost before anything is
sent (the same figures as ``convo replay --dry-run``); a fan-out asks for the
prompt, the models (``provider:model``, one per line) and the samples per model.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.app.calls.replay import ReplayPlan
from explorer.providers import PROVIDER_KINDS

MAX_SAMPLES = 8


def plan_rows(plan: ReplayPlan) -> list[tuple[str, str, str, str, str]]:
    """(step, prompt, tokens in, tokens out, cost) per step, as the dialog lists them."""
    rows = []
    for i, step in enumerate(plan.steps, start=1):
        cost = f"${step.cost:.4f}" if step.cost is not None else "unknown"
        rows.append((str(i), " ".join(step.text.split())[:80], f"~{step.input_tokens:,}",
                     f"~{step.output_tokens:,}", cost))
    return rows


def plan_total(plan: ReplayPlan, model: str | None) -> str:
    total = plan.to_dict()
    cost = f"${total['cost_usd']:.4f}" if total["cost_usd"] is not None else "cost unknown"
    return (f"{len(plan.steps)} step(s) with {model or 'the default model'}: "
            f"~{total['input_tokens']:,} input tokens in all, {cost}")


class ReplayDialog(QDialog):
    """The plan, step by step; Replay sends it, Cancel sends nothing."""

    def __init__(self, plan: ReplayPlan, model: str | None, parent: QWidget | None = None
                 ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Replay the branch onto the edit")
        layout = QVBoxLayout(self)
        intro = QLabel(
            f"Each later prompt of the branch ending at message {plan.tip} is sent again, in "
            f"order, after the edited prompt {plan.onto}. A failed step keeps every finished "
            "turn; Edit → Undo removes them all.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.steps = QTreeWidget(self)
        self.steps.setHeaderLabels(["#", "Prompt", "Tokens in", "Tokens out", "Cost"])
        self.steps.setRootIsDecorated(False)
        for row in plan_rows(plan):
            self.steps.addTopLevelItem(QTreeWidgetItem(list(row)))
        self.steps.resizeColumnToContents(0)
        self.steps.setColumnWidth(1, 360)
        layout.addWidget(self.steps)
        self.total = QLabel(plan_total(plan, model))
        layout.addWidget(self.total)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        run = buttons.addButton(f"Replay {len(plan.steps)} step(s)",
                                QDialogButtonBox.ButtonRole.AcceptRole)
        run.setObjectName("replay_run")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 360)


@dataclass(frozen=True)
class FanoutRequest:
    text: str
    models: tuple[str, ...]  # provider:model
    samples: int


def parse_models(text: str) -> tuple[str, ...]:
    """``provider:model`` per line or comma; refuses an unknown provider with the list."""
    specs = tuple(s.strip() for s in text.replace(",", "\n").splitlines() if s.strip())
    for spec in specs:
        kind, _, model = spec.partition(":")
        if kind not in PROVIDER_KINDS or not model:
            raise ValueError(f"{spec!r}: expected PROVIDER:MODEL with PROVIDER one of "
                             f"{', '.join(PROVIDER_KINDS)}")
    return specs


class FanoutDialog(QDialog):
    """The prompt, the models to ask and the samples per model."""

    def __init__(self, models: str, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Ask several models")
        form = QFormLayout(self)
        self.prompt = QPlainTextEdit(text, self)
        self.prompt.setPlaceholderText("The prompt every model answers")
        self.models = QPlainTextEdit(models, self)
        self.models.setPlaceholderText("provider:model, one per line")
        self.models.setFixedHeight(80)
        self.samples = QSpinBox(self)
        self.samples.setRange(1, MAX_SAMPLES)
        hint = QLabel("The prompt is added after the tip of the active path; each model's "
                      "answers become sibling answers, then open side by side to compare. "
                      "The first model's first answer becomes the tip.", self)
        hint.setWordWrap(True)
        form.addRow(hint)
        self.error = QLabel("", self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #e03131")
        form.addRow("Prompt", self.prompt)
        form.addRow("Models", self.models)
        form.addRow("Answers per model", self.samples)
        form.addRow(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        buttons.addButton("Ask", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.resize(560, 360)

    def request(self) -> FanoutRequest:
        """What was asked; raises ValueError with the reason when it cannot be run."""
        text = self.prompt.toPlainText().strip()
        if not text:
            raise ValueError("the prompt is empty")
        models = parse_models(self.models.toPlainText())
        if not models:
            raise ValueError("name at least one model (provider:model)")
        return FanoutRequest(text, models, self.samples.value())

    def accept(self) -> None:
        try:
            self.request()
        except ValueError as e:
            self.error.setText(str(e))
            return
        super().accept()
