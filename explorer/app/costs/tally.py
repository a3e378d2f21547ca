"""Sums of answers' costs: tokens by kind, money where priced, and what was estimated (C5).

Every group a cost report shows (a branch, the shared prefix, a turn, a model, a subagent)
is one :class:`Tally`, so they add up the same way: tokens exactly, money to the micro-dollar,
and a group that holds an estimated or unpriced answer says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class AnswerCost:
    """What one answer cost: measured from its usage, or estimated from the sizes."""

    id: int
    model: str | None
    input: int
    output: int
    cache_read: int
    cache_write: int
    usd: float | None  # None: no price for its model
    how: str  # "measured", "partial" (usage lacked a count) or "estimated"


@dataclass
class Tally:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    answers: int = 0
    estimated: list[int] = field(default_factory=list)  # answers estimated or partly so
    unpriced: int = 0
    no_price: set[str] = field(default_factory=set)
    _usd: list[float] = field(default_factory=list)

    def add(self, cost: AnswerCost) -> None:
        self.input += cost.input
        self.output += cost.output
        self.cache_read += cost.cache_read
        self.cache_write += cost.cache_write
        self.answers += 1
        if cost.how != "measured":
            self.estimated.append(cost.id)
        if cost.usd is None:
            self.unpriced += 1
            self.no_price.add(cost.model or "(no model named)")
        else:
            self._usd.append(cost.usd)

    def merge(self, other: Tally) -> None:
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.answers += other.answers
        self.estimated += other.estimated
        self.unpriced += other.unpriced
        self.no_price |= other.no_price
        self._usd += other._usd

    @property
    def tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    @property
    def usd(self) -> float | None:
        """Money of the priced answers (None: none of them has a price)."""
        if not self._usd:
            return 0.0 if self.answers == 0 else None
        return round(math.fsum(self._usd), 6)

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input, "output_tokens": self.output,
            "cache_read_tokens": self.cache_read, "cache_write_tokens": self.cache_write,
            "cost_usd": self.usd, "answers": self.answers,
            "estimated": bool(self.estimated), "estimated_answers": sorted(self.estimated),
            "unpriced_answers": self.unpriced, "no_price": sorted(self.no_price),
        }


def summed(tallies: list[Tally]) -> Tally:
    out = Tally()
    for t in tallies:
        out.merge(t)
    return out
