"""A compaction test bench: the same next prompt sent with the full context and with each
rung's, the answers kept as archived sibling branches marked as probes (``convo probe``).

Every context comes from the one pipeline (``planner``), redacted like any request, so a
probe measures the very context ``send`` would post at that rung. With a recall quiz each
context is also asked questions whose answers are known (``recall_quiz``) and scored.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.app import compacting, recall_quiz
from explorer.app.conversation_ops import RunOptions
from explorer.compaction import planner
from explorer.compaction.context import CompactionPlan
from explorer.compaction.ladder import LadderError
from explorer.compaction.target import Target
from explorer.providers.base import Provider, ProviderError
from explorer.store import Store, StoreError, operations, tree_writes
from explorer.store.marks import set_marks
from explorer.tree.model import Message, Part

PROBE_RUNGS = ("full", "shake", "snapshot", "summary")
META_KEY = "probe"


@dataclass
class ProbeRun:
    """One rung's context, what it cost and what came back (``skipped`` says why not)."""

    rung: str
    kind: str  # "prompt" or "quiz"
    context_tokens: int = 0
    rungs: tuple[str, ...] = ()
    pages: int = 0
    message_ids: list[int] = field(default_factory=list)
    answer: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    score: recall_quiz.Score | None = None
    skipped: str | None = None

    @property
    def answer_id(self) -> int | None:
        return self.message_ids[-1] if self.message_ids else None

    def to_dict(self) -> dict[str, Any]:
        return {"rung": self.rung, "kind": self.kind, "context_tokens": self.context_tokens,
                "rungs": list(self.rungs), "pages": self.pages,
                "message_ids": self.message_ids, "answer_id": self.answer_id,
                "answer": self.answer, "usage": self.usage, "skipped": self.skipped,
                "score": self.score.to_dict() if self.score else None}


@dataclass
class ProbeResult:
    conversation: int
    parent: int | None
    target: Target
    runs: list[ProbeRun]
    quiz: recall_quiz.Quiz | None = None
    notes: list[str] = field(default_factory=list)

    def answer_ids(self, kind: str = "prompt") -> list[int]:
        return [r.answer_id for r in self.runs if r.kind == kind and r.answer_id is not None]

    def to_dict(self) -> dict[str, Any]:
        return {"conversation": self.conversation, "parent": self.parent,
                "target": self.target.record(), "runs": [r.to_dict() for r in self.runs],
                "quiz": [q.to_dict() for q in self.quiz.questions] if self.quiz else None,
                "compare": self.answer_ids(), "notes": self.notes}


def parse_rungs(text: str) -> list[str]:
    rungs = [r.strip() for r in text.split(",") if r.strip()]
    unknown = [r for r in rungs if r not in PROBE_RUNGS]
    if unknown or not rungs:
        raise StoreError(f"unknown rung(s) {', '.join(unknown) or '(none)'}; "
                         f"choose from {', '.join(PROBE_RUNGS)}")
    return list(dict.fromkeys(rungs))


def rung_plan(context: Sequence[Message], rung: str, target: Target, options: RunOptions
              ) -> CompactionPlan:
    """The context ``send`` would build at ``rung`` ("full": none compacted, "shake": the
    free rungs), from the one pipeline."""
    if rung == "full":
        return planner.full_plan(context, target)
    if rung == "shake":
        return planner.shake_plan(context, target)
    if rung == "summary" and options.summarizer is None:
        raise LadderError("the summary rung needs a summarizer (a key, and no --no-summary)")
    return planner.build_plan(context, target, rung=rung, summarizer=options.summarizer)


def probe(store: Store, conv_id: int, text: str | None, provider: Provider,
          options: RunOptions, rungs: Sequence[str], quiz_size: int = 0) -> ProbeResult:
    """Send ``text`` (and the quiz) after each rung's context; store each answer as an
    archived sibling branch of the point the next prompt continues."""
    target = options.target
    context = compacting.active_context(store, conv_id)
    if not context:
        raise StoreError(f"conversation {conv_id} is empty")
    parent = context[-1].id if isinstance(context[-1].id, int) else None
    result = ProbeResult(conv_id, parent, target, [])
    plans: dict[str, CompactionPlan | str] = {}
    for rung in rungs:
        try:
            plans[rung] = rung_plan(context, rung, target, options)
        except (LadderError, ProviderError) as e:
            plans[rung] = str(e)
    if quiz_size:
        result.quiz = recall_quiz.build_quiz(_middle(context, target), quiz_size)
        if not result.quiz.questions:
            result.notes.append("no exact strings to ask about in the middle: no quiz")
    asks = ([("prompt", text)] if text else []) + (
        [("quiz", result.quiz.prompt)] if result.quiz and result.quiz.questions else [])
    for kind, prompt_text in asks:
        for rung in rungs:
            run = _run(store, conv_id, parent, plans[rung], rung, kind, prompt_text, provider,
                       target)
            if kind == "quiz" and result.quiz and run.skipped is None:
                run.score = result.quiz.score(run.answer)
            result.runs.append(run)
    return result


def _middle(context: Sequence[Message], target: Target) -> list[Message]:
    """What a snapshot would fold: the quiz asks about it (the whole context when short)."""
    plan = planner.build_plan(context, target, rung="snapshot")
    return list(plan.split.middle) if plan.split is not None else list(plan.path)


def _run(store: Store, conv_id: int, parent: int | None, plan: CompactionPlan | str,
         rung: str, kind: str, text: str, provider: Provider, target: Target) -> ProbeRun:
    run = ProbeRun(rung, kind)
    if isinstance(plan, str):
        run.skipped = plan
        return run
    prompt = Message(id="new:probe", parent_id=parent, role="user", parts=[Part("text", text)],
                     created_at=time.time(),
                     source_meta={META_KEY: {"rung": rung, "kind": kind, "tier": target.tier}})
    sent = planner.request_messages(plan, planner.redacted([prompt], target, []))
    run.context_tokens, run.rungs, run.pages = plan.tokens, plan.rungs, len(plan.pages)
    if rung == "full" and not planner.prompt_fits(plan, [prompt], target):
        run.skipped = f"the full context ({plan.tokens:,} tokens) does not fit the window"
        return run
    try:
        done = provider.complete(sent, max_tokens=target.output_reserve,
                                 prompt_start=len(sent) - 1)
    except ProviderError as e:
        run.skipped = f"the provider refused: {e}"
        return run
    answer = Message(id="new:answer", parent_id=None, role="assistant",
                     parts=[p for p in done.parts if p.kind != "tool_use"] or [Part("text", "")],
                     created_at=time.time(), model=done.model, usage=done.usage,
                     source_meta={META_KEY: {"rung": rung, "kind": kind,
                                             "context_tokens": plan.tokens,
                                             "rungs": list(plan.rungs)}})
    run.answer = answer.text
    run.usage = done.usage.to_dict() if done.usage else {}
    run.message_ids = store.transact(_write, conv_id, [prompt, answer], parent, rung, kind)
    return run


def _write(conn: sqlite3.Connection, conv_id: int, messages: Sequence[Message],
           parent: int | None, rung: str, kind: str) -> list[int]:
    """The probe's prompt and answer beside the path, archived and labelled, the tip where it
    was; one undoable operation."""
    ids = tree_writes.append_turn(conn, conv_id, messages, parent_id=parent, move_tip=False,
                                  as_root=parent is None)
    label = f"probe: {rung}" if kind == "prompt" else f"recall quiz: {rung}"
    set_marks(conn, conv_id, ids[0], archived_at=time.time(), label=label)
    operations.record(conn, conv_id, "probe", f"{label} (messages {ids[0]}–{ids[-1]})",
                      {"created": ids})
    return ids
