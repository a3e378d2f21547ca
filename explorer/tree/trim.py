"""Trimming a resumed run to its most recent turns (P4) and what it drops (C4).

The trimmed history stays in the tree; only the conversation's context start
moves. The cut is always at a turn start, so the kept part never holds a
tool result whose call was cut away.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from explorer.tree.errors import ExplorerError
from explorer.tree.model import Message
from explorer.tree.turns import turn_starts


class TrimError(ExplorerError, ValueError):
    """The path offers no place to cut."""


@dataclass(frozen=True)
class TrimPlan:
    """Where the active context starts after a trim, and which labels die."""

    start_index: int
    start_id: Hashable
    kept_turns: int
    dropped_checkpoints: list[str] = field(default_factory=list)


def char_estimate(message: Message) -> int:
    """A rough token count (four characters a token) when nothing better is given."""
    return max(1, sum(p.size for p in message.parts) // 4)


def plan_trim(
    path: Sequence[Message],
    *,
    keep_turns: int | None = None,
    keep_tokens: int | None = None,
    checkpoints: Mapping[str, Hashable] | None = None,
    estimate: Callable[[Message], int] = char_estimate,
) -> TrimPlan:
    """Choose the context start keeping the last turns that fit the limit.

    With ``keep_tokens`` at least the last turn is kept even when it alone is
    larger: a request with no turn at all cannot be sent.
    """
    if (keep_turns is None) == (keep_tokens is None):
        raise TrimError("give exactly one of keep_turns or keep_tokens")
    starts = turn_starts(path)
    if not starts:
        raise TrimError("the path has no turn boundary to cut at")
    if keep_turns is not None:
        if keep_turns < 1:
            raise TrimError("keep at least one turn")
        chosen = starts[-min(keep_turns, len(starts))]
    else:
        chosen = _start_for_tokens(path, starts, keep_tokens or 0, estimate)
    kept = sum(1 for s in starts if s >= chosen)
    return TrimPlan(
        start_index=chosen,
        start_id=path[chosen].id,
        kept_turns=kept,
        dropped_checkpoints=dropped_checkpoints(path, chosen, checkpoints or {}),
    )


def _start_for_tokens(
    path: Sequence[Message], starts: list[int], budget: int, estimate: Callable[[Message], int]
) -> int:
    costs = [estimate(m) for m in path]
    chosen = starts[-1]
    total = sum(costs[chosen:])
    for s in reversed(starts[:-1]):
        extra = sum(costs[s:chosen])
        if total + extra > budget:
            break
        total += extra
        chosen = s
    return chosen


def dropped_checkpoints(
    path: Sequence[Message], start_index: int, checkpoints: Mapping[str, Hashable]
) -> list[str]:
    """Labels whose target on this path was cut away (dropped, never clamped; C4).

    Labels on other branches are not touched: their targets were not trimmed.
    """
    cut_ids = {m.id for m in path[:start_index]}
    return sorted(label for label, target in checkpoints.items() if target in cut_ids)
