"""Turn boundaries on a path (P1) and the turns between them.

A boundary is a point after which no tool call waits for its result: every
``tool_use`` up to it has its ``tool_result``. A turn opens with a prompt (a
user message that is not only tool output) and runs to the next prompt.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from explorer.tree.model import Message


def _waiting_after_each(path: Sequence[Message]) -> Iterator[dict[str, None]]:
    """The tool-call ids still unanswered after each message (one dict, updated in place)."""
    waiting: dict[str, None] = {}
    for m in path:
        for p in m.parts:
            if p.kind == "tool_use" and p.tool_use_id:
                waiting[p.tool_use_id] = None
            elif p.kind == "tool_result" and p.tool_use_id:
                waiting.pop(p.tool_use_id, None)
        yield waiting


def pending_after(path: Sequence[Message]) -> list[list[str]]:
    """For each index, the tool-call ids still unanswered after that message."""
    return [list(waiting) for waiting in _waiting_after_each(path)]


def open_calls(path: Sequence[Message]) -> list[str]:
    """The tool-call ids still unanswered after the whole path, in call order.

    Memory is the open calls, not the path: an import asks this once of a path of
    100,000 messages, where :func:`pending_after` would keep a list per message.
    """
    last = deque(_waiting_after_each(path), maxlen=1)
    return list(last[0]) if last else []


def boundary_flags(path: Sequence[Message]) -> list[bool]:
    """``flags[i]`` is True when the point after ``path[i]`` is a turn boundary.

    One pass with one set: a path whose unanswered calls pile up (an agent killed
    mid-call, again and again) costs its length, not its length times the pile.
    """
    open_calls: set[str] = set()
    flags: list[bool] = []
    for m in path:
        for p in m.parts:
            if p.kind == "tool_use" and p.tool_use_id:
                open_calls.add(p.tool_use_id)
            elif p.kind == "tool_result" and p.tool_use_id:
                open_calls.discard(p.tool_use_id)
        flags.append(not open_calls)
    return flags


def is_boundary(path: Sequence[Message], index: int) -> bool:
    """True when the point after ``path[index]`` is a clean turn boundary."""
    return boundary_flags(path[: index + 1])[index]


def last_clean_boundary(path: Sequence[Message]) -> int | None:
    """Index of the last message after which the path is at a boundary (P3)."""
    flags = boundary_flags(path)
    for i in range(len(flags) - 1, -1, -1):
        if flags[i]:
            return i
    return None


@dataclass(frozen=True)
class Turn:
    """Messages ``path[start:end]``: a prompt and everything answering it."""

    start: int
    end: int


def turn_starts(path: Sequence[Message]) -> list[int]:
    """Indices where a turn can start: a prompt right after a boundary.

    Messages before the first prompt (a system message) belong to no turn.
    """
    flags = boundary_flags(path)
    return [i for i, m in enumerate(path) if m.is_prompt and (i == 0 or flags[i - 1])]


def split_turns(path: Sequence[Message]) -> list[Turn]:
    """The path's turns in order, each from one turn start to the next.

    A path with no prompt (a character's greeting alone, an answer whose prompt was
    lost) has no turns.
    """
    starts = turn_starts(path)
    if not starts:
        return []
    ends = [*starts[1:], len(path)]
    return [Turn(s, e) for s, e in zip(starts, ends, strict=True)]
