"""What of a context the provider is expected to read from its prompt cache, and at what price.

Anthropic bills a cache read at a tenth of the input price and a cache write (5-minute TTL) at
1.25 times it (https://docs.claude.com/en/docs/build-with-claude/prompt-caching, "Pricing").
Every answer sent to Anthropic keeps the keys of the prefixes its request marked; the preview
of the next request finds the longest of its own marked prefixes among them: that part is
expected from the cache, the rest up to the last mark is written. OpenAI caches automatically
and reports ``cached_tokens``, which the usage of each answer records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.compaction import planner
from explorer.compaction.context import CompactionPlan
from explorer.compaction.estimate import Estimator
from explorer.compaction.target import ProviderKind, Target
from explorer.providers.anthropic_body import cache_marks, cache_prefixes
from explorer.providers.encoding import encode_request
from explorer.tree.model import Message

READ_PRICE = 0.1  # of the input price
WRITE_PRICE = 1.25
SOURCE = "https://docs.claude.com/en/docs/build-with-claude/prompt-caching"
META_KEY = "cache_prefixes"


@dataclass(frozen=True)
class CacheOutlook:
    """Tokens expected to be read from the cache and written to it by the next request."""

    read: int
    written: int
    uncached: int

    @property
    def cost_in_input_tokens(self) -> float:
        """What the request's input costs, counted in full-price input tokens."""
        return self.read * READ_PRICE + self.written * WRITE_PRICE + self.uncached

    def to_dict(self) -> dict[str, Any]:
        return {"read_tokens": self.read, "written_tokens": self.written,
                "uncached_tokens": self.uncached, "read_price": READ_PRICE,
                "write_price": WRITE_PRICE, "cost_in_input_tokens":
                    round(self.cost_in_input_tokens), "source": SOURCE}


def written_prefixes(messages: Sequence[Message], target: Target, prompt_start: int | None,
                     estimator: Estimator) -> list[dict[str, Any]]:
    """The prefixes the request for ``messages`` writes to the cache: key and tokens each
    (kept on the answer, so the next preview knows what the cache holds)."""
    if target.kind is not ProviderKind.ANTHROPIC:
        return []
    keys, _ = cache_prefixes(encode_request(messages, target, prompt_start=prompt_start))
    ends = _ends(messages, prompt_start)
    if len(ends) != len(keys):
        return []
    return [{"key": k, "messages": e + 1, "tokens": estimator.estimate(messages[: e + 1])}
            for k, e in zip(keys, ends, strict=True)]


def _ends(messages: Sequence[Message], prompt_start: int | None) -> list[int]:
    """The message each breakpoint closes, in order (the system text first when there is one)."""
    ends = sorted(cache_marks(messages, prompt_start))
    if messages and messages[0].role == "system" and 0 not in ends:
        ends = [0, *ends]
    return ends


def outlook(plan: CompactionPlan, target: Target) -> CacheOutlook | None:
    """The cache outlook of the preview's request, from the prefixes the last answer wrote."""
    if target.kind is not ProviderKind.ANTHROPIC:
        return None
    messages = plan.messages()
    _, reachable = cache_prefixes(encode_request(messages, target))
    ends = _ends(messages, None)
    est = plan.estimator
    # a prefix with the same bytes holds the same first messages: costed by today's estimate
    read = max((est.estimate(messages[: int(p.get("messages", 0))])
                for p in _previous(messages) if p.get("key") in reachable), default=0)
    marked = est.estimate(messages[: ends[-1] + 1]) if ends else 0
    total = est.estimate(messages)
    return CacheOutlook(read, max(0, marked - read), max(0, total - max(marked, read)))


def _previous(messages: Sequence[Message]) -> list[dict[str, Any]]:
    for m in reversed(messages):
        if m.role == "assistant" and m.source_meta.get(META_KEY):
            return [p for p in m.source_meta[META_KEY] if isinstance(p, dict)]
    return []


def last_measured(context: Sequence[Message]) -> dict[str, int] | None:
    """What the provider read from and wrote to its cache for the last answer on ``context``
    (its usage: Anthropic's cache reads and writes, OpenAI's ``cached_tokens``, Gemini's
    cached count); ``None`` before any measured answer."""
    for m in reversed(context):
        if m.role == "assistant" and m.usage is not None and m.usage.input_tokens is not None:
            return {"message": int(m.id) if isinstance(m.id, int) else -1,
                    "read": m.usage.cache_read_tokens or 0,
                    "written": m.usage.cache_write_tokens or 0}
    return None


def figures(context: Sequence[Message], target: Target) -> dict[str, Any]:
    """The context panel's cache figures: the next request's outlook (planned as the preview
    and ``send`` plan it) and what the last answer measured."""
    out: dict[str, Any] = {"outlook": None, "last": last_measured(context)}
    if context and target.kind is ProviderKind.ANTHROPIC:
        cache = outlook(planner.build_plan(context, target), target)
        out["outlook"] = cache.to_dict() if cache is not None else None
    return out
