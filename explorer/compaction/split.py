"""L3 shape: verbatim head, middle to be imaged, verbatim tail.

The head is the task and the constraints everything refers back to; the tail
is where the work is now. Both cuts fall where a turn starts, so the tail
never opens with a tool result whose call went into the middle. A long agent
run can be one single turn; only then may a cut fall at another clean
boundary (after every call has its result, before a message that answers
nothing), which is still never an orphan result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Literal, Protocol

from explorer.compaction.estimate import Estimator
from explorer.tree.model import Message
from explorer.tree.turns import boundary_flags, turn_starts

CutMode = Literal["turns", "boundaries"]


class PageLike(Protocol):
    """A rendered snapshot page: PNG bytes and its pixel size."""

    @property
    def png(self) -> bytes: ...

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...


Renderer = Callable[[Sequence[Message]], Sequence[PageLike]]


@dataclass(frozen=True)
class Split:
    """``path[:head_end]`` head, ``path[head_end:tail_start]`` middle, rest tail."""

    head: tuple[Message, ...]
    middle: tuple[Message, ...]
    tail: tuple[Message, ...]
    head_end: int
    tail_start: int
    head_tokens: int
    middle_tokens: int
    tail_tokens: int
    cuts: CutMode

    def to_dict(self) -> dict[str, Any]:
        return {
            "head_messages": len(self.head),
            "middle_messages": len(self.middle),
            "tail_messages": len(self.tail),
            "head_end": self.head_end,
            "tail_start": self.tail_start,
            "head_tokens": self.head_tokens,
            "middle_tokens": self.middle_tokens,
            "tail_tokens": self.tail_tokens,
            "cuts": self.cuts,
        }


def cut_points(path: Sequence[Message], mode: CutMode = "turns") -> list[int]:
    """Indices where a verbatim part may start without an orphan tool result."""
    if mode == "turns":
        return turn_starts(path)
    flags = boundary_flags(path)
    return [
        i
        for i, m in enumerate(path)
        if (i == 0 or flags[i - 1]) and not any(p.kind == "tool_result" for p in m.parts)
    ]


def split_path(
    path: Sequence[Message],
    estimator: Estimator,
    *,
    head_budget: int,
    tail_budget: int,
    cuts: CutMode = "turns",
    head_estimator: Estimator | None = None,
) -> Split:
    """Cut the path into head, middle and tail within the two token budgets.

    The head always holds what precedes the first prompt and the first turn
    (the task); the tail always holds at least the last turn, even when it
    alone is over budget, because a request without it cannot continue.
    ``head_estimator`` (default: ``estimator``) prices the head's turns: the ladder gives one
    that does not learn, so the head a compaction keeps does not move when a later round
    has learned another correction (the provider's prompt cache keeps its prefix).
    """
    costs = [estimator.message(m) for m in path]
    points = [c for c in cut_points(path, cuts) if 0 < c < len(path)]
    first_prompt = next((i for i, m in enumerate(path) if m.is_prompt), None)
    head_costs = costs if head_estimator is None else [head_estimator.message(m) for m in path]
    head_end = _head_end(head_costs, points, first_prompt, head_budget)
    tail_start = _tail_start(costs, points, head_end, tail_budget)
    return Split(
        head=tuple(path[:head_end]),
        middle=tuple(path[head_end:tail_start]),
        tail=tuple(path[tail_start:]),
        head_end=head_end,
        tail_start=tail_start,
        head_tokens=sum(costs[:head_end]),
        middle_tokens=sum(costs[head_end:tail_start]),
        tail_tokens=sum(costs[tail_start:]),
        cuts=cuts,
    )


def _head_end(costs: list[int], points: list[int], first_prompt: int | None, budget: int) -> int:
    if first_prompt is None:
        return 0
    after_task = [c for c in points if c > first_prompt]
    if not after_task:
        return len(costs)
    prefix = [0, *accumulate(costs)]
    head_end = after_task[0]
    for c in after_task[1:]:
        if prefix[c] > budget:
            break
        head_end = c
    return head_end


def _tail_start(costs: list[int], points: list[int], head_end: int, budget: int) -> int:
    later = [c for c in points if c >= head_end]
    if not later:
        return head_end
    prefix = [0, *accumulate(costs)]
    total = prefix[-1]
    tail_start = later[-1]
    for c in reversed(later[:-1]):
        if total - prefix[c] > budget:
            break
        tail_start = c
    return tail_start


def best_split(
    path: Sequence[Message], estimator: Estimator, *, head_budget: int, tail_budget: int,
    head_estimator: Estimator | None = None,
) -> Split:
    """Split at turn starts; fall back to clean boundaries when that leaves no middle."""
    split = split_path(path, estimator, head_budget=head_budget, tail_budget=tail_budget,
                       head_estimator=head_estimator)
    if split.middle:
        return split
    return split_path(path, estimator, head_budget=head_budget, tail_budget=tail_budget,
                      cuts="boundaries", head_estimator=head_estimator)
