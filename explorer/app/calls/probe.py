"""A compaction test bench: the same next prompt sent with the full context and with each
rung's, the answers kept as archived sibling branches marked as probes (``convo probe``).

Every context comes from the one pipeline (``planner``), redacted like any request, so a
probe measures the very context ``send`` would post at that rung. With a recall quiz each
context is also asked questions whose answers are known (``recall_quiz``) and scored.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.app.calls import recall_quiz
from explorer.app.calls.conversation_ops import RunOptions
from explorer.app.context import compacting
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
    store.require_writable()  # before any call is paid for
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
            result.notes.append("no exact strings or decisions to ask about in the middle: no quiz")
    asks = ([("prompt", text)] if text else []) + (
        [("quiz", result.quiz.prompt)] if result.quiz and result.quiz.questions else [])
    bench = Bench(store, conv_id, parent, provider, target, uuid.uuid4().hex[:12])
    for kind, prompt_text in asks:
        quiz = result.quiz if kind == "quiz" else None
        for rung in rungs:
            result.runs.append(_run(bench, plans[rung], rung, kind, prompt_text, quiz))
    return result


@dataclass(frozen=True)
class Bench:
    """What every run of one probe shares; ``run_id`` ties its branches together."""

    store: Store
    conv_id: int
    parent: int | None
    provider: Provider
    target: Target
    run_id: str


def _middle(context: Sequence[Message], target: Target) -> list[Message]:
    """What a snapshot would fold: the quiz asks about it (the whole context when short)."""
    plan = planner.build_plan(context, target, rung="snapshot")
    return list(plan.split.middle) if plan.split is not None else list(plan.path)


def _run(bench: Bench, plan: CompactionPlan | str, rung: str, kind: str, text: str,
         quiz: recall_quiz.Quiz | None) -> ProbeRun:
    run = ProbeRun(rung, kind)
    if isinstance(plan, str):
        run.skipped = plan
        return run
    target = bench.target
    tag = {"rung": rung, "kind": kind, "run": bench.run_id}
    prompt = Message(id="new:probe", parent_id=bench.parent, role="user",
                     parts=[Part("text", text)], created_at=time.time(),
                     source_meta={META_KEY: {**tag, "tier": target.tier}})
    sent = planner.request_messages(plan, planner.redacted([prompt], target, []))
    run.context_tokens, run.rungs, run.pages = plan.tokens, plan.rungs, len(plan.pages)
    if rung == "full" and not planner.prompt_fits(plan, [prompt], target):
        run.skipped = f"the full context ({plan.tokens:,} tokens) does not fit the window"
        return run
    try:
        done = bench.provider.complete(sent, max_tokens=target.output_reserve,
                                       prompt_start=len(sent) - 1)
    except ProviderError as e:
        run.skipped = f"the provider refused: {e}"
        return run
    parts = [p for p in done.parts if p.kind != "tool_use"] or [Part("text", "")]
    run.answer = "\n".join(p.text for p in parts if p.kind == "text" and p.text)
    run.score = quiz.score(run.answer) if quiz is not None else None
    record: dict[str, Any] = {**tag, "context_tokens": plan.tokens, "rungs": list(plan.rungs),
                              "pages": len(plan.pages), "tier": target.tier}
    if run.score is not None:
        record["score"] = {k: v for k, v in run.score.to_dict().items() if k != "answers"}
    answer = Message(id="new:answer", parent_id=None, role="assistant", parts=parts,
                     created_at=time.time(), model=done.model, usage=done.usage,
                     source_meta={META_KEY: record})
    run.usage = done.usage.to_dict() if done.usage else {}
    run.message_ids = bench.store.transact(_write, bench.conv_id, [prompt, answer],
                                           bench.parent, rung, kind)
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
