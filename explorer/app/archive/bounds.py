"""Every result is bounded in size and says when it was cut (A1).

An agent's context window is the scarce thing: a tool that answered with a whole
100,000-message session would crowd out the work it was asked for. Each tool fills a
budget of characters (the caller may choose it, within limits) and reports ``cut`` with
the reason and how to ask for the rest; a last guard cuts whatever still overflows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from explorer.app.archive.arguments import Param

DEFAULT_CHARS = 20_000
MIN_CHARS = 1_000
MAX_CHARS = 100_000
ENVELOPE = 400  # room kept for the result's own fields around its items


def size(value: Any) -> int:
    """Characters ``value`` takes as the JSON an agent reads."""
    return len(json.dumps(value, ensure_ascii=False, default=str))


def max_chars_param() -> Param:
    return Param("max_chars", "integer",
                 "the most characters the result may take; longer results are cut and say so",
                 default=DEFAULT_CHARS, minimum=MIN_CHARS, maximum=MAX_CHARS)


def page_params(default: int, most: int) -> list[Param]:
    return [Param("limit", "integer", "how many to return", default=default, minimum=1,
                  maximum=most),
            Param("offset", "integer", "how many to skip (for the next page)", default=0,
                  minimum=0, maximum=1_000_000)]


def cut_text(text: str, limit: int) -> str:
    """``text`` kept to ``limit`` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:max(0, limit)]}… [{len(text) - limit:,} more characters]"


class Budget:
    """Characters left for a result, and why it was cut when it was."""

    def __init__(self, chars: int) -> None:
        self.left = chars - ENVELOPE
        self.reasons: list[str] = []

    @property
    def cut(self) -> bool:
        return bool(self.reasons)

    def fits(self, value: Any) -> bool:
        """Take room for ``value`` when it fits (then True)."""
        need = size(value) + 2
        if need > self.left:
            return False
        self.left -= need
        return True

    def take(self, items: Iterable[Any], reason: str) -> list[Any]:
        """The leading items that fit; ``reason`` is recorded when any was left out."""
        kept: list[Any] = []
        for item in items:
            if not self.fits(item):
                self.reasons.append(reason)
                break
            kept.append(item)
        return kept

    def say(self, reason: str) -> None:
        self.reasons.append(reason)

    def finish(self, result: dict[str, Any]) -> dict[str, Any]:
        result["cut"] = self.cut
        if self.cut:
            result["cut_reason"] = "; ".join(dict.fromkeys(self.reasons))
        return result


def guard(result: dict[str, Any], chars: int) -> dict[str, Any]:
    """The result within ``chars`` whatever a tool did: its longest strings are shortened
    and its longest lists lose their tails until it fits, and it says so."""
    if size(result) <= chars:
        return result
    for _ in range(200):
        over = size(result) - chars
        if over <= 0:
            break
        found = _largest(result)
        if found is None:
            break
        holder, key, value = found
        if isinstance(value, str):
            holder[key] = cut_text(value, max(0, len(value) - over - 40))
        else:
            del value[max(0, len(value) - max(1, len(value) // 4)):]
    result["cut"] = True
    reason = f"the result was longer than {chars:,} characters and was shortened"
    result["cut_reason"] = "; ".join(x for x in (result.get("cut_reason"), reason) if x)
    return result


def _largest(value: Any) -> tuple[Any, Any, Any] | None:
    """(holder, key, value) of the largest string or list inside ``value``."""
    best: tuple[int, Any, Any, Any] | None = None
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in pairs:
            if isinstance(v, str | list) and k not in ("cut_reason",):
                n = size(v)
                if (isinstance(v, str) or v) and (best is None or n > best[0]):
                    best = (n, node, k, v)
            if isinstance(v, dict | list):
                stack.append(v)
    return None if best is None else best[1:]
