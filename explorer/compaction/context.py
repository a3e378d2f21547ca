"""The built context (what would be sent) and what fills the window, by part.

The preview and the request must be the same bytes (SPEC §5), so the plan the
ladder returns holds the very messages and page PNGs to send, and a JSON-able
record of how they were made. ``/context`` reads the accounting below.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.compaction.elision import RungReport, jsonable_id
from explorer.compaction.estimate import Estimator, measured_prompt
from explorer.compaction.facts import FactSheet
from explorer.compaction.kinds import PART_NAMES as PART_NAMES
from explorer.compaction.split import PageLike, Split
from explorer.compaction.summary import SummaryRequest, summary_message
from explorer.tree.model import Message, Part

SNAPSHOT_INTRO = (
    "The earlier part of this conversation follows as {n} page image(s) of its verbatim text, "
    "oldest first."
)


def page_sha256(page: PageLike) -> str:
    return hashlib.sha256(page.png).hexdigest()


SOURCE_KEY = "compacted_source"  # in-memory only: the messages a snapshot stands for


def snapshot_message(
    pages: Sequence[PageLike], facts: FactSheet | None, parent_id: Any = None,
    source: Sequence[Message] = (),
) -> Message:
    """One user message carrying the pages (in order) and the fact sheet beside them.

    ``source`` keeps the middle it was drawn from, so a later pass renders the
    pages again from that text (L4) instead of imaging these pixels.
    """
    parts = [Part("text", SNAPSHOT_INTRO.format(n=len(pages)), meta={"compaction": "snapshot"})]
    for i, page in enumerate(pages):
        meta = {
            "compaction": "snapshot",
            "page": i,
            "width": page.width,
            "height": page.height,
            "sha256": page_sha256(page),
        }
        parts.append(Part("image", data=page.png, media_type="image/png", meta=meta))
    if facts is not None and facts.text:
        parts.append(Part("text", facts.text, meta={"compaction": "facts"}))
    return Message(id="compaction:snapshot", parent_id=parent_id, role="user", parts=parts,
                   source_meta={"compaction": "snapshot", SOURCE_KEY: tuple(source)})


def expand_compacted(path: Sequence[Message]) -> list[Message]:
    """The path with every snapshot message replaced by the messages it was drawn from."""
    out: list[Message] = []
    for m in path:
        source = m.source_meta.get(SOURCE_KEY)
        if m.source_meta.get("compaction") == "snapshot" and source:
            out.extend(expand_compacted(source))
        else:
            out.append(m)
    return out


@dataclass
class CompactionPlan:
    """The context the ladder built: head, pages or summary, tail, and its record."""

    mode: str
    trigger: str
    rungs: tuple[str, ...]
    path: tuple[Message, ...]
    estimator: Estimator
    window: int | None = None
    output_reserve: int = 0
    target: int | None = None
    tokens_before: int = 0
    split: Split | None = None
    pages: tuple[PageLike, ...] = ()
    facts: FactSheet | None = None
    summary: str | None = None
    summary_request: SummaryRequest | None = None
    reports: dict[str, RungReport] = field(default_factory=dict)
    savings: dict[str, int] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def middle_message(self) -> Message | None:
        """The message standing in for the middle: pages + facts, or the summary."""
        if self.split is None:
            return None
        parent = self.split.head[-1].id if self.split.head else None
        if self.summary is not None:
            return summary_message(self.summary, parent)
        return snapshot_message(self.pages, self.facts, parent, self.split.middle)

    def messages(self) -> list[Message]:
        """Exactly the messages that would be sent, in order."""
        if self.split is None:
            return list(self.path)
        middle = self.middle_message()
        return [*self.split.head, *([middle] if middle else []), *self.split.tail]

    @property
    def tokens(self) -> int:
        return self.estimator.estimate(self.messages())

    @property
    def fits(self) -> bool:
        return self.target is None or self.tokens <= self.target

    def part_tokens(self) -> dict[str, int]:
        """Tokens of each piece of the built context."""
        est = self.estimator
        if self.split is None:
            return {"path": est.estimate(self.path, with_overhead=False), "overhead": est.overhead}
        middle = self.middle_message()
        page_parts = [p for p in (middle.parts if middle else []) if p.kind == "image"]
        fact_text = self.facts.text if self.facts and self.summary is None else ""
        return {
            "head": est.estimate(self.split.head, with_overhead=False),
            "pages": sum(est.part(p) for p in page_parts),
            "facts": est.correct(est.text_tokens(fact_text)) if fact_text else 0,
            "summary": est.estimate([middle], with_overhead=False)
            if middle and self.summary is not None
            else 0,
            "tail": est.estimate(self.split.tail, with_overhead=False),
            "overhead": est.overhead,
        }

    def density(self) -> dict[str, float] | None:
        """Characters the pages carry per token, alone and with the fact sheet sent beside them.

        The sheet is part of what imaging the middle costs, so a density that leaves it out
        flatters the pages (issue #18 measured 19.5 chars a token alone, 12.1 with the sheet).
        """
        chars = sum(int(getattr(p, "chars", 0)) for p in self.pages)
        if not chars or self.summary is not None:
            return None
        parts = self.part_tokens()
        pages, facts = parts["pages"], parts["facts"]
        return {
            "chars": chars,
            "page_tokens": pages,
            "fact_tokens": facts,
            "chars_per_token": round(chars / max(1, pages), 2),
            "chars_per_token_with_facts": round(chars / max(1, pages + facts), 2),
        }

    def to_record(self) -> dict[str, Any]:
        """JSON-able record to store on the tip: parameters, page hashes, token counts."""
        record: dict[str, Any] = {
            "version": 1,
            "mode": self.mode,
            "trigger": self.trigger,
            "rungs": list(self.rungs),
            "fits": self.fits,
            "parameters": {
                **self.parameters,
                "window": self.window,
                "output_reserve": self.output_reserve,
                "target": self.target,
                "estimator": self.estimator.to_dict(),
            },
            "tokens": {"before": self.tokens_before, "after": self.tokens, **self.part_tokens()},
            "savings": dict(self.savings),
            "reports": {k: r.to_dict() for k, r in self.reports.items()},
            "notes": list(self.notes),
        }
        if self.split is not None:
            record["split"] = {**self.split.to_dict(), **_split_ids(self.split)}
            record["pages"] = [
                {
                    "index": i,
                    "sha256": page_sha256(p),
                    "width": p.width,
                    "height": p.height,
                    "bytes": len(p.png),
                    "tokens": self.estimator.image_price(p.width, p.height),
                }
                for i, p in enumerate(self.pages)
            ]
            record["facts"] = self.facts.to_dict() if self.facts else None
            density = self.density()
            if density is not None:
                record["density"] = density
            if self.summary_request is not None:
                record["summary"] = {
                    "request": self.summary_request.to_dict(),
                    "chars": len(self.summary or ""),
                }
        return record


def _split_ids(split: Split) -> dict[str, Any]:
    def first_id(ms: Sequence[Message]) -> Any:
        return jsonable_id(ms[0].id) if ms else None

    return {
        "middle_first_id": first_id(split.middle),
        "middle_last_id": jsonable_id(split.middle[-1].id) if split.middle else None,
        "tail_start_id": first_id(split.tail),
    }


@dataclass(frozen=True)
class ContextUsage:
    """What fills the window, by part: estimated, and measured where the path says."""

    family: str
    window: int | None
    output_reserve: int
    parts: dict[str, int]
    estimated_total: int
    measured_total: int | None
    measured_at: Any
    factor: float

    @property
    def free(self) -> int | None:
        if self.window is None:
            return None
        used = self.measured_total if self.measured_total is not None else self.estimated_total
        return self.window - self.output_reserve - used

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "window": self.window,
            "output_reserve": self.output_reserve,
            "parts": dict(self.parts),
            "free": self.free,
            "estimated_total": self.estimated_total,
            "measured_total": self.measured_total,
            "measured_at": None if self.measured_at is None else jsonable_id(self.measured_at),
            "factor": round(self.factor, 4),
        }


def part_bucket(message: Message, part: Part) -> str:
    """Which slice of the window a part belongs to."""
    if part.kind == "image":
        return "snapshots" if part.meta.get("compaction") == "snapshot" else "images"
    if part.kind == "tool_use":
        return "tools"
    if part.kind == "tool_result":
        return "tool_results"
    if message.role == "system":
        return "system"
    return "assistant" if message.role == "assistant" else "user"


def context_usage(
    messages: Sequence[Message],
    estimator: Estimator,
    *,
    window: int | None = None,
    output_reserve: int = 0,
) -> ContextUsage:
    """Account for ``messages`` by part; measured = last stored prompt count + what follows."""
    parts = dict.fromkeys(PART_NAMES, 0)
    overhead = estimator.rules.message_overhead
    for m in messages:
        role_bucket = (
            "system" if m.role == "system" else ("assistant" if m.role == "assistant" else "user")
        )
        parts[role_bucket] += estimator.correct(overhead)
        for p in m.parts:
            parts[part_bucket(m, p)] += estimator.part(p)
    parts["overhead"] = estimator.overhead
    measured, at = _measured(messages, estimator)
    return ContextUsage(
        family=estimator.family,
        window=window,
        output_reserve=output_reserve,
        parts=parts,
        estimated_total=sum(parts.values()),
        measured_total=measured,
        measured_at=at,
        factor=estimator.factor,
    )


def _measured(messages: Sequence[Message], estimator: Estimator) -> tuple[int | None, Any]:
    """The latest assistant message's prompt count, plus the estimate of the messages after."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        count = measured_prompt(m.usage, estimator.family) if m.role == "assistant" else None
        if count:
            return count + estimator.estimate(messages[i:], with_overhead=False), m.id
    return None, None
