"""The one plan builder: a context and a :class:`Target` in, the messages to send out (X1).

The preview, ``/compact``, ``/context``, ``send``, ``rerun``, ``regenerate``, edit-and-run and
overflow recovery all call these functions, so the ladder runs with the same threshold,
reserve, estimator and renderer wherever a context is built. A request is the plan of the
context *before* the new prompt, with the prompt appended: the preview of a conversation is
therefore byte for byte the start of the request ``send`` posts next, as long as the prompt
fits the room the target leaves (past that, the ladder runs again with the prompt inside).
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.compaction.context import CompactionPlan, ContextUsage, context_usage
from explorer.compaction.estimate import Estimator
from explorer.compaction.ladder import RUNGS, LadderError, Mode, Rung, run_ladder, shake
from explorer.compaction.summary import Summarizer
from explorer.compaction.target import Target
from explorer.tree.model import Message


def parse_rung(rung: str | None) -> Rung | None:
    """``rung`` checked against the ladder's rungs (``None``: the ladder decides)."""
    if rung is None:
        return None
    if rung not in RUNGS:
        raise LadderError(f"unknown rung {rung!r} (known: {', '.join(RUNGS)})")
    return rung


def build_plan(
    context: Sequence[Message],
    target: Target,
    *,
    rung: str | None = None,
    summarizer: Summarizer | None = None,
    mode: Mode = "proactive",
    estimator: Estimator | None = None,
    pins: Sequence[str] = (),
) -> CompactionPlan:
    """Run the ladder on ``context`` for ``target`` (up to ``rung`` when one is named).

    ``estimator`` carries what an earlier attempt learned (a rejection's measured count);
    without one, a fresh estimator learns from the usage stored on the context. ``pins``
    (the conversation's pinned strings) ride on the fact sheet (L8).
    """
    if not context:
        raise LadderError("the context is empty")
    force = parse_rung(rung)
    renderer = target.renderer()
    if renderer is None and force == "snapshot":
        force = "images"  # a model that cannot see gets no pages; the free rungs still run
    est = estimator if estimator is not None else target.estimator(context)
    notes: list[str] = []
    context = redacted(context, target, notes)
    plan = run_ladder(
        context, target.window, est, renderer, summarizer, mode=mode, force=force,
        threshold=target.threshold, safety=target.safety,
        output_reserve=target.output_reserve, keep_turns=target.keep_turns,
        max_images=target.images.max_images, pins=pins,
    )
    plan.notes[:0] = notes
    return plan


def redacted(messages: Sequence[Message], target: Target, notes: list[str]) -> list[Message]:
    """The messages after the target's redactor (the one hook before pages, summaries and
    bodies are made); unchanged without one."""
    if target.redactor is None:
        return list(messages)
    return target.redactor(messages, notes)


def shake_plan(context: Sequence[Message], target: Target) -> CompactionPlan:
    """The free rungs only (``/shake``), costed for ``target``."""
    notes: list[str] = []
    plan = shake(redacted(context, target, notes), target.estimator(context),
                 keep_turns=target.keep_turns)
    plan.notes[:0] = notes
    return plan


def full_plan(context: Sequence[Message], target: Target) -> CompactionPlan:
    """The context with nothing compacted (a probe's baseline), costed for ``target``."""
    if not context:
        raise LadderError("the context is empty")
    notes: list[str] = []
    path = tuple(redacted(context, target, notes))
    est = target.estimator(context)
    plan = CompactionPlan(mode="proactive", trigger="none", rungs=(), path=path, estimator=est,
                          window=target.window, output_reserve=target.output_reserve,
                          target=int(target.available * target.threshold), notes=notes)
    plan.tokens_before = est.estimate(path)
    return plan


def usage(context: Sequence[Message], target: Target) -> ContextUsage:
    """What fills ``target``'s window, by part (``/context``)."""
    context = redacted(context, target, [])
    return context_usage(context, target.estimator(context), window=target.window,
                         output_reserve=target.output_reserve)


def request_messages(plan: CompactionPlan, prompt: Sequence[Message]) -> list[Message]:
    """The messages a request carries: the plan's context, then the new prompt."""
    return [*plan.messages(), *prompt]


def prompt_fits(plan: CompactionPlan, prompt: Sequence[Message], target: Target) -> bool:
    """True when the plan with the prompt appended stays inside the target's safety margin."""
    tokens = plan.estimator.estimate(request_messages(plan, prompt))
    return tokens <= int(target.available * target.safety)
