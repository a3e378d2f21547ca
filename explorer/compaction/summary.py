"""L6: the summarizing request, built so that it fits.

Summary is the last rung: it spends a model call and decides what mattered.
The request it sends must itself fit the window (L7): after an overflow the
old context is exactly what did not fit, so the transcript is cut from the
oldest end (with a note saying how much) until the estimate is within budget.
The provider call is behind the :class:`Summarizer` protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from explorer.compaction.estimate import Estimator
from explorer.tree.errors import ExplorerError
from explorer.tree.model import Message, Part

SUMMARY_SYSTEM = (
    "You compress a conversation between a person and an assistant so that the work can "
    "continue in a new context. Write plain text only."
)
SUMMARY_INSTRUCTIONS = (
    "Summarize the transcript below so that the conversation can continue without it. Keep:\n"
    "1. The task and every constraint the person stated.\n"
    "2. Decisions taken and why; approaches tried and rejected.\n"
    "3. Open threads: what is unfinished, failing or promised next.\n"
    "4. Files, commands, identifiers and values that later work depends on, exactly as written.\n"
    "Be concise; do not invent anything that is not in the transcript."
)
TRUNCATED_TAIL = "\n[... {chars:,} chars cut from this message to fit ...]"


class Summarizer(Protocol):
    """Something that turns a summarizing request into summary text (a model call)."""

    def summarize(self, request: SummaryRequest) -> str: ...


@dataclass(frozen=True)
class SummaryRequest:
    """The request to send: a system text and one user message with the transcript."""

    system: str
    messages: tuple[Message, ...]
    budget: int
    estimated_tokens: int
    included_messages: int
    omitted_messages: int
    omitted_chars: int

    @property
    def prompt(self) -> str:
        return self.messages[-1].text if self.messages else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "estimated_tokens": self.estimated_tokens,
            "included_messages": self.included_messages,
            "omitted_messages": self.omitted_messages,
            "omitted_chars": self.omitted_chars,
        }


class SummaryTooLarge(ExplorerError, ValueError):
    """Even the bare instructions do not fit the budget."""


def render_part(part: Part) -> str:
    """A part as transcript text (images by their description only)."""
    if part.kind == "tool_use":
        return f"[tool call {part.tool_name or 'tool'} {part.tool_use_id or ''}] {part.text}"
    if part.kind == "tool_result":
        flag = " ERROR" if part.is_error else ""
        return f"[tool result {part.tool_use_id or ''}{flag}] {part.text}"
    if part.kind == "image":
        return f"[image {part.media_type or ''}, {len(part.data or b''):,} bytes]"
    if part.kind == "thinking":
        return f"[thinking] {part.text}"
    return part.text


def render_message(message: Message) -> str:
    body = "\n".join(render_part(p) for p in message.parts)
    return f"## {message.role}\n{body}"


def _request(
    system: str, instructions: str, note: str, blocks: Sequence[str]
) -> tuple[Message, Message]:
    text = "\n\n".join([instructions, "<transcript>", *([note] if note else []), *blocks])
    text += "\n</transcript>"
    return (
        Message(id="summary:system", parent_id=None, role="system", parts=[Part("text", system)]),
        Message(id="summary:request", parent_id=None, role="user", parts=[Part("text", text)]),
    )


def build_summary_request(
    middle: Sequence[Message],
    estimator: Estimator,
    budget: int,
    *,
    system: str = SUMMARY_SYSTEM,
    instructions: str = SUMMARY_INSTRUCTIONS,
) -> SummaryRequest:
    """The summarizing request holding as much of ``middle`` as fits ``budget`` tokens.

    Newest messages are kept first; older ones are left out with a note, and
    a single message larger than the budget is cut at its end.
    """
    blocks = [render_message(m) for m in middle]
    costs = [estimator.correct(estimator.text_tokens(b)) + 2 for b in blocks]
    empty = _request(system, instructions, _note(len(middle), 10**12), [])
    base = estimator.estimate(empty, with_overhead=False)
    if base > budget:
        raise SummaryTooLarge(f"the summary instructions alone need {base} > {budget} tokens")
    first, used = len(blocks), base
    while first > 0 and used + costs[first - 1] <= budget:
        first -= 1
        used += costs[first]
    if first == len(blocks) and blocks:
        first -= 1  # nothing fits whole: keep the newest message, cut at its end
    return _fit(middle, blocks, first, estimator, budget, system, instructions)


def _fit(
    middle: Sequence[Message],
    blocks: list[str],
    first: int,
    estimator: Estimator,
    budget: int,
    system: str,
    instructions: str,
) -> SummaryRequest:
    """Assemble, check the real estimate, and drop or cut old blocks until it fits."""
    limit: int | None = None  # token limit for the oldest kept block once it must be cut
    while True:
        kept = blocks[first:]
        cut = 0
        if kept and limit is not None:
            kept[0], cut = _cut_to_fit(kept[0], estimator, limit)
        omitted_chars = sum(len(b) for b in blocks[:first]) + cut
        note = _note(first, omitted_chars) if omitted_chars else ""
        messages = _request(system, instructions, note, kept)
        tokens = estimator.estimate(messages, with_overhead=False)
        if tokens <= budget or not kept:
            break
        if len(kept) > 1:
            first += 1
            continue
        current = (
            limit if limit is not None else estimator.correct(estimator.text_tokens(blocks[first]))
        )
        limit = current - (tokens - budget) - 16
        if limit <= 0:
            first += 1
    return SummaryRequest(
        system=system,
        messages=messages,
        budget=budget,
        estimated_tokens=tokens,
        included_messages=len(middle) - first,
        omitted_messages=first,
        omitted_chars=omitted_chars,
    )


def _note(omitted: int, chars: int) -> str:
    return (
        f"[{omitted:,} earlier messages ({chars:,} chars) are left out so that this request "
        "fits; the transcript starts later in the conversation.]"
    )


def _cut_to_fit(block: str, estimator: Estimator, limit: int) -> tuple[str, int]:
    """Keep the start of one oversized block (role line and opening) within ``limit``."""
    keep = len(block)
    marker_cost = estimator.correct(estimator.text_tokens(TRUNCATED_TAIL.format(chars=keep)))
    while keep > 0 and estimator.correct(estimator.text_tokens(block[:keep])) + marker_cost > limit:
        keep = int(keep * 0.8)
    cut = len(block) - keep
    return block[:keep] + TRUNCATED_TAIL.format(chars=cut), cut


def summary_message(text: str, parent_id: Any = None) -> Message:
    """The message that stands for the summarized middle in the built context."""
    body = f"Summary of the earlier part of this conversation:\n\n{text}"
    return Message(
        id="compaction:summary",
        parent_id=parent_id,
        role="user",
        parts=[Part("text", body, meta={"compaction": "summary"})],
    )
