"""What the model saw at a node: the request as it was (or would be) sent there, part by part.

The context comes from the one pipeline (``conversation_ops.plan_request``: the ladder with
the target, the compaction applied on the path, the redactor, the encoder), so what is shown
is what ``send`` posts (X1). At an answer it is the request that produced the answer; at any
other node, the request that node is the last message of. A compaction recorded on the
answer names the target it was made for: that target is used, so the pages and fact sheet
are drawn again from the source text exactly as they were sent; a summary cannot be drawn
again without a model call, so the stored summary text stands in for the call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.app.calls.conversation_ops import plan_request
from explorer.app.context.compacting import from_context_start
from explorer.compaction.context import CompactionPlan
from explorer.compaction.elision import jsonable_id
from explorer.compaction.summary import SummaryRequest
from explorer.compaction.target import Target, TargetError
from explorer.providers.encoding import encode_request
from explorer.store import Store, StoreError
from explorer.tree.model import Message, Part
from explorer.tree.secrets import redact_text

SECTIONS = ("verbatim", "head", "middle", "tail", "prompt")


@dataclass(frozen=True)
class SentPart:
    """One part of the request: where it sits, what it stands for, its tokens and text."""

    section: str  # verbatim (nothing compacted), head, middle, tail or prompt
    role: str
    message_id: Any  # the stored message it comes from ("compaction:..." for a stand-in)
    index: int
    kind: str  # text, thinking, tool_use, tool_result, image, page, facts, summary, intro
    state: str  # verbatim, elided, image dropped, redacted, paged, summarized
    tokens: int
    text: str
    part: Part

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"section": self.section, "role": self.role,
                               "message_id": jsonable_id(self.message_id), "index": self.index,
                               "kind": self.kind, "state": self.state, "tokens": self.tokens}
        if self.kind in ("page", "image"):
            out.update({k: self.part.meta[k] for k in ("page", "width", "height", "sha256")
                        if k in self.part.meta})
            out["bytes"] = len(self.part.data or b"")
        else:
            out["text"] = self.text
        return out


@dataclass
class NodeContext:
    """The request at one node, with the records of compactions on the path to it."""

    conversation: int
    at: int
    target: Target
    plan: CompactionPlan
    sent: list[Message]
    prompt: int  # how many of ``sent`` are the new prompt
    path_ids: list[Any]  # every stored message the request stands for (head to prompt)
    records: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    def parts(self) -> list[SentPart]:
        return sent_parts(self)

    @property
    def tokens(self) -> int:
        return self.plan.estimator.estimate(self.sent)

    def body(self) -> dict[str, Any]:
        """The literal request body for the target (images as base64)."""
        return encode_request(self.sent, self.target, notes=[],
                              prompt_start=len(self.sent) - self.prompt)

    def by_section(self) -> dict[str, int]:
        totals = dict.fromkeys(SECTIONS, 0)
        for p in self.parts():
            totals[p.section] += p.tokens
        return totals

    def to_dict(self) -> dict[str, Any]:
        return {
            "conversation": self.conversation, "at": self.at,
            "target": self.target.record(), "rungs": list(self.plan.rungs),
            "tokens": {"total": self.tokens, "window": self.target.window,
                       "overhead": self.plan.estimator.overhead, **self.by_section()},
            "system": [p.text for p in self.parts() if p.role == "system"],
            "tools": [],  # requests declare no tools: calls on the path travel as history
            "parts": [p.to_dict() for p in self.parts()],
            "compactions": [_record_summary(r) for r in self.records],
            "notes": self.notes,
        }


class StoredSummary:
    """The summary rung answered by a stored summary instead of a model call."""

    def __init__(self, text: str) -> None:
        self.text = text

    def summarize(self, request: SummaryRequest) -> str:
        return self.text


def context_at(store: Store, conv_id: int, at: int, target: Target) -> NodeContext:
    """The request the model received at message ``at`` (or would, at a prompt not yet sent)."""
    if store.message_conversation(at) != conv_id:
        raise StoreError(f"message {at} is not in conversation {conv_id}")
    conv = store.conversation(conv_id)
    path = from_context_start(store.path(conv_id, at), conv.context_start_id)
    if not path:
        raise StoreError(f"nothing was sent before message {at}")
    request = path[:-1] if path[-1].role == "assistant" else path
    split = len(request) - 1 if request and request[-1].role != "assistant" else len(request)
    context, prompt = list(request[:split]), list(request[split:])
    ids = {m.id for m in path}
    records = [r for r in store.compactions(conv_id) if r["message_id"] in ids]
    notes: list[str] = []
    own = [r for r in records if r["message_id"] == at]
    if own:
        target = _recorded_target(own[-1], target, notes)
    summarizer = _stored_summary(records, notes, redact=target.redactor is not None)
    if not request:
        raise StoreError(f"nothing was sent before message {at}")
    plan, sent, plan_notes = plan_request(store, conv_id, context, prompt, target, summarizer)
    notes += plan_notes + plan.notes
    return NodeContext(conv_id, at, target, plan, sent, len(prompt) if prompt else 0,
                       [m.id for m in request], records, notes)


def _recorded_target(record: dict[str, Any], target: Target, notes: list[str]) -> Target:
    """The target a record on the answer was made for (the answer was sent to it)."""
    p = record["params"]
    try:
        made = Target(p["provider"], model=p["model"], window=int(p["window"]),
                      output_reserve=int(p["output_reserve"]),
                      threshold=float(p.get("threshold", target.threshold)),
                      tier=p.get("tier", target.tier), vision=bool(p.get("vision", True)),
                      redactor=target.redactor)
    except (KeyError, TypeError, ValueError, TargetError):
        notes.append(f"compaction record {record['id']} names no usable target; "
                     "the context is built for the chosen one")
        return target
    if not target.same_context(made.record()):
        notes.append(f"the answer was sent to {made.kind} {made.model} (window "
                     f"{made.window:,}); the context is built for that target, as it was sent")
    return made


def _stored_summary(records: Sequence[dict[str, Any]], notes: list[str], *, redact: bool
                    ) -> StoredSummary | None:
    """The latest stored summary on the path, standing in for the summary call (redacted
    too: it may have been written before redaction, or by a model that echoed a secret)."""
    for r in reversed(records):
        if r["kind"] == "summary" and r["summary"]:
            notes.append(f"the summary is the one stored with compaction {r['id']} (drawing it "
                         "again would need a model call)")
            text, kinds = redact_text(r["summary"]) if redact else (r["summary"], [])
            if kinds:
                notes.append(f"redacted {len(kinds)} secret(s) in that stored summary")
            return StoredSummary(text)
    return None


def sent_parts(ctx: NodeContext) -> list[SentPart]:
    """Every part of the request in order, labelled by section and state."""
    est = ctx.plan.estimator
    split = ctx.plan.split
    head_n = len(split.head) if split is not None else 0
    middle_at = head_n if split is not None and ctx.plan.middle_message() is not None else -1
    prompt_from = len(ctx.sent) - ctx.prompt
    out: list[SentPart] = []
    for i, m in enumerate(ctx.sent):
        section = ("prompt" if i >= prompt_from else "verbatim" if split is None
                   else "head" if i < head_n else "middle" if i == middle_at else "tail")
        for j, p in enumerate(m.parts):
            kind, state = _kind_state(p)
            tokens = est.part(p) + (est.correct(est.rules.message_overhead) if j == 0 else 0)
            out.append(SentPart(section, m.role, m.id, j, kind, state, tokens, p.text, p))
    return out


def _kind_state(p: Part) -> tuple[str, str]:
    what = p.meta.get("compaction")
    if what == "snapshot":
        return ("page", "paged") if p.kind == "image" else ("intro", "paged")
    if what == "facts":
        return "facts", "paged"
    if what == "summary":
        return "summary", "summarized"
    if "elided" in p.meta:
        return p.kind, "elided"
    if "dropped_image" in p.meta:
        return "image", "image dropped"
    if p.meta.get("redacted_secrets"):
        return p.kind, "redacted"
    return p.kind, "verbatim"


def _record_summary(r: dict[str, Any]) -> dict[str, Any]:
    out = r.get("outputs") or {}
    return {"id": r["id"], "message_id": r["message_id"], "kind": r["kind"],
            "origin": r.get("origin"), "rungs": out.get("rungs", []),
            "tokens": out.get("tokens", {}), "pages": len(out.get("pages") or []),
            "summary": r["summary"] or None}


def context_lines(ctx: NodeContext, width: int = 100) -> list[str]:
    """The request as text: one line a part (text shortened), then totals and notes."""
    t = ctx.target
    lines = [f"context at message {ctx.at} for {t.kind} {t.model} (window {t.window:,}): "
             f"{ctx.tokens:,} tokens, rungs: {', '.join(ctx.plan.rungs) or 'none'}"]
    section = ""
    for p in ctx.parts():
        if p.section != section:
            section = p.section
            lines.append(f"-- {section} --")
        shown = (f"{p.part.meta.get('width')}x{p.part.meta.get('height')} px page "
                 f"{int(p.part.meta.get('page', 0)) + 1}" if p.kind == "page"
                 else " ".join(p.text.split()))
        if len(shown) > width:
            shown = shown[: width - 1] + "…"
        lines.append(f"  {p.tokens:>7,}  {p.message_id!s:>10} {p.role:<9} {p.kind:<11} "
                     f"{p.state:<13} {shown}")
    totals = ctx.by_section()
    lines.append("tokens: " + " · ".join(f"{k} {v:,}" for k, v in totals.items())
                 + f" · overhead {ctx.plan.estimator.overhead:,}")
    for r in ctx.records:
        lines.append(f"compaction {r['id']} on message {r['message_id']}: {r['kind']}")
    lines += [f"note: {n}" for n in ctx.notes]
    return lines
