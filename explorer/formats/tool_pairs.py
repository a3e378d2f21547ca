"""Tool calls without a call id get a stable one, and their results are paired by order.

Some providers give no call ids. A call without an id cannot be answered in any
exporter's format, so each unnamed call gets ``<message id>:call<n>`` and each
unnamed result, in order, the id of the next unanswered call of the nearest
message above it that made calls.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from explorer.tree.model import Message, Part


def pair_unnamed_calls(messages: Sequence[Message], notes: list[str]) -> None:
    """Give every call an id and pair results that have none with calls by order."""
    by_id: dict[Hashable, Message] = {m.id: m for m in messages}
    named = 0
    for m in messages:
        for n, p in enumerate(c for c in m.parts if c.kind == "tool_use"):
            if not p.tool_use_id:
                p.tool_use_id = f"{m.id}:call{n}"
                named += 1
    paired = unpaired = 0
    for m in messages:
        results = [p for p in m.parts if p.kind == "tool_result" and not p.tool_use_id]
        if not results:
            continue
        open_calls = _open_calls(m, by_id)
        for result in results:
            call = _take(open_calls, result)
            if call is None:
                unpaired += 1
                continue
            result.tool_use_id = call.tool_use_id
            result.tool_name = result.tool_name or call.tool_name
            paired += 1
    if named:
        notes.append(f"{named} tool call(s) had no call id; gave each a stable one "
                     f"and paired {paired} result(s) with them by order")
    if unpaired:
        notes.append(f"{unpaired} tool result(s) had no call id and no call to answer; "
                     "kept as they are")


def _open_calls(m: Message, by_id: dict[Hashable, Message]) -> list[Part]:
    """Calls of the nearest message at or above ``m`` that made calls, not yet answered
    by a result between it and ``m``."""
    answered: set[str | None] = set()
    node: Message | None = m
    for _ in range(len(by_id) + 1):
        if node is None:
            return []
        answered |= {p.tool_use_id for p in node.parts if p.kind == "tool_result"}
        if node.tool_uses():
            return [p for p in node.tool_uses() if p.tool_use_id not in answered]
        node = by_id.get(node.parent_id) if node.parent_id is not None else None
    return []


def _take(calls: list[Part], result: Part) -> Part | None:
    """The first open call with the result's tool name (any name when it has none)."""
    for i, call in enumerate(calls):
        if not result.tool_name or not call.tool_name or call.tool_name == result.tool_name:
            return calls.pop(i)
    return None
