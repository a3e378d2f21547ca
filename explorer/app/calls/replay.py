"""Replay a branch after an edit: re-run each later prompt of the old branch on the edited one.

``convo replay TIP --onto PROMPT``: PROMPT is an edited sibling of a prompt on the
path to TIP. Every prompt the old branch asked after that one is sent again, in
order, on the new branch, through the same send use-cases the app uses, so each
step is one whole turn (P2). A failed or cancelled step keeps every finished turn;
the finished steps are one undoable operation (T8). The plan (``--dry-run``) gives
the estimated tokens and, where the model's price is known, the cost of each step.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from explorer.app.calls import conversation_ops as ops
from explorer.app.tending.tree_actions import Change, archived_rows, unfolded_since
from explorer.app.views.tree_view import tended_view
from explorer.compaction.estimate import Estimator
from explorer.compaction.ladder import LadderError
from explorer.providers.base import Provider, ProviderError
from explorer.store import Store, StoreError, operations
from explorer.store.rows import db_id
from explorer.tree.model import Message
from explorer.tree.turns import turn_starts

# US dollars per million tokens (input, output) for the defaults the settings offer.
PRICES: dict[str, tuple[float, float]] = {
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
}


@dataclass(frozen=True)
class ReplayStep:
    """One prompt to send again: ``prompt_id`` is the old branch's prompt (or the edit)."""

    prompt_id: int
    text: str
    input_tokens: int
    output_tokens: int
    cost: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"prompt": self.prompt_id, "text": self.text, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "cost_usd": self.cost}


@dataclass
class ReplayPlan:
    conversation_id: int
    tip: int
    onto: int
    replaces: int  # the prompt on the old branch that PROMPT is an edit of
    start: int  # where the first step continues: PROMPT, or its newest answer
    answer_onto: bool  # step one answers PROMPT itself (it has no answer yet)
    steps: list[ReplayStep] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        costs = [s.cost for s in self.steps]
        return {"conversation": self.conversation_id, "tip": self.tip, "onto": self.onto,
                "replaces": self.replaces, "steps": [s.to_dict() for s in self.steps],
                "input_tokens": sum(s.input_tokens for s in self.steps),
                "cost_usd": sum(c for c in costs if c is not None) if None not in costs
                else None}


def cost_usd(model: str | None, tokens_in: int, tokens_out: int) -> float | None:
    """US dollars for these tokens at the model's list price; ``None`` when it is unknown."""
    price = PRICES.get(model or "")
    if price is None:
        return None
    return round((tokens_in * price[0] + tokens_out * price[1]) / 1_000_000, 6)


def replay_tip(store: Store, onto: int) -> int:
    """The end of the old branch an edited prompt replaces: the preferred (else the active,
    else the newest) leaf below the prompt it was edited from."""
    conv_id = store.message_conversation(onto)
    original = store.edits(conv_id).get(onto)
    if original is None:
        raise StoreError(f"message {onto} is not an edited prompt: edit a prompt first, then "
                         "replay the branch after it onto the edit")
    tip = store.conversation(conv_id).tip_id
    active = store.path_ids(tip) if tip is not None else []
    leaf = tended_view(store, conv_id).preferred_tip(original, active)
    if leaf is None or leaf == original:
        raise StoreError(f"nothing follows prompt {original}: there is no branch to replay")
    return leaf


def stale_edit(store: Store, answer: int) -> int:
    """The edited prompt a stale answer waits for: the newest edit, not yet replayed over
    ``answer``, of the nearest prompt above it that was edited into a sibling."""
    conv_id = store.message_conversation(answer)
    if answer not in tended_view(store, conv_id).stale:
        raise StoreError(f"message {answer} is not a stale answer: no prompt above it was "
                         "edited since (or its branch was replayed already)")
    by_original: dict[int, list[int]] = {}
    for edit, original in store.edits(conv_id).items():
        by_original.setdefault(original, []).append(edit)
    replays = store.replays(conv_id)
    path = store.path_ids(answer)
    for above in reversed(path[:-1]):
        for edit in sorted(by_original.get(above, ()), reverse=True):
            if not any(onto == edit and answer in store.path_ids(tip) for tip, onto in replays):
                return edit
    raise StoreError(f"no edited prompt found above message {answer}")  # stale says there is


def replay_source(store: Store, mid: int) -> tuple[int, int]:
    """(old branch tip, edited prompt) to replay from a message a person picked: an edited
    prompt (its old branch), or a stale answer (the branch through it, onto its edit)."""
    conv_id = store.message_conversation(mid)
    if mid in store.edits(conv_id):
        return replay_tip(store, mid), mid
    onto = stale_edit(store, mid)
    tip = store.conversation(conv_id).tip_id
    active = store.path_ids(tip) if tip is not None else []
    return tended_view(store, conv_id).preferred_tip(mid, active) or mid, onto


def plan_replay(
    store: Store, tip: int, onto: int, estimator: Estimator | None = None,
    model: str | None = None,
) -> ReplayPlan:
    """The steps, each estimated on the context it will have (old answers stand in for new)."""
    conv_id = store.message_conversation(tip)
    if store.message_conversation(onto) != conv_id:
        raise StoreError(f"messages {tip} and {onto} are in different conversations")
    edited = store.message(onto)
    if not edited.is_prompt:
        raise StoreError(f"message {onto} is a {edited.role} message, not an edited prompt")
    old = store.path(conv_id, tip)
    ids = [db_id(m.id) for m in old]
    if onto in ids:
        raise StoreError(f"message {onto} is on the branch to {tip}; replay onto its edited "
                         "sibling instead")
    at = next((i for i, m in enumerate(old) if m.parent_id == edited.parent_id), None)
    if at is None or not old[at].is_prompt:
        raise StoreError(f"message {onto} is not an edit of a prompt on the path to {tip}")
    later = [old[i] for i in turn_starts(old) if i > at]
    answers = [c for c in store.children(onto) if store.message(c).role == "assistant"]
    start = answers[-1] if answers else onto
    plan = ReplayPlan(conv_id, tip, onto, ids[at], start, not answers)
    estimator = estimator or Estimator()
    context = store.path(conv_id, start)
    firsts = [(edited, _answer_after(old, at))] if plan.answer_onto else []
    for prompt, answer in [*firsts, *((p, _answer_after(old, ids.index(db_id(p.id))))
                                      for p in later)]:
        context = context if prompt is edited else [*context, prompt]
        tokens_in = estimator.estimate(context)
        tokens_out = estimator.estimate([answer], with_overhead=False) if answer else 0
        plan.steps.append(ReplayStep(db_id(prompt.id), prompt.text, tokens_in, tokens_out,
                                     cost_usd(model, tokens_in, tokens_out)))
        if answer is not None:
            context = [*context, answer]
    return plan


def _answer_after(path: list[Message], i: int) -> Message | None:
    """The last assistant message of the turn that opens at ``path[i]`` (the old answer)."""
    found = None
    for m in path[i + 1:]:
        if m.is_prompt:
            break
        if m.role == "assistant":
            found = m
    return found


Progress = Callable[[int, int, ReplayStep], None]


@dataclass
class ReplayOutcome:
    change: Change | None
    finished: int
    error: str | None = None
    created: list[int] = field(default_factory=list)


def replay(
    store: Store, plan: ReplayPlan, provider: Provider, options: ops.RunOptions,
    progress: Progress | None = None, cancel: threading.Event | None = None,
) -> ReplayOutcome:
    """Run the plan's steps in order; stop at the first failure, keeping what finished."""
    conv = plan.conversation_id
    before = store.conversation(conv).tip_id
    folded = archived_rows(store.reader, conv)  # what the new turns may unfold (T6)
    store.branch(conv, plan.start)
    created: list[int] = []
    error = None
    for i, step in enumerate(plan.steps):
        if cancel is not None and cancel.is_set():
            error = f"cancelled before step {i + 1} of {len(plan.steps)}"
            break
        if progress:
            progress(i, len(plan.steps), step)
        try:
            if i == 0 and plan.answer_onto:
                result = ops.regenerate(store, conv, plan.onto, provider, options, log=False)
            else:
                result = ops.send(store, conv, step.text, provider, options, log=False)
        except (ProviderError, StoreError, LadderError) as e:
            error = f"step {i + 1} of {len(plan.steps)} failed: {e}"
            break
        except KeyboardInterrupt:
            error = f"cancelled during step {i + 1} of {len(plan.steps)}"
            break
        created += result.message_ids
    if not created:
        if before is not None:
            store.branch(conv, before)
        return ReplayOutcome(None, 0, error)
    change = _record(store, plan, before, created, folded)
    return ReplayOutcome(change, _steps(plan, created), error, created)


def _steps(plan: ReplayPlan, created: list[int]) -> int:
    """Finished steps: the first (answering PROMPT) writes one message, the others two."""
    if plan.answer_onto:
        return 1 + (len(created) - 1) // 2
    return len(created) // 2


def _record(store: Store, plan: ReplayPlan, before: int | None, created: list[int],
            folded: dict[int, dict[str, Any]]) -> Change:
    summary = f"replayed the branch to {plan.tip} onto {plan.onto} ({len(created)} message(s))"
    conv = plan.conversation_id

    def run(conn: Any) -> Change:
        unfolded = unfolded_since(conn, conv, folded, created)
        undo: dict[str, Any] = {"tip": before, "created": created,
                                "replay": {"from_tip": plan.tip, "onto": plan.onto},
                                **({"marks": unfolded} if unfolded else {})}
        op = operations.record(conn, conv, "replay", summary, undo)
        changed: dict[str, Any] = {"created": created, "replayed_from": plan.tip,
                                   "onto": plan.onto, "tip": {"from": before, "to": created[-1]}}
        if unfolded:
            changed["unarchived"] = [int(r["message_id"]) for r in unfolded]
        return Change("replay", conv, op, summary, changed)
    return store.transact(run)
