"""The tool calls on the path to a message, each with its result, subagents' calls included.

A subagent's work happened inside the call that started it, so its transcript's calls come
right after that call's message (V1 hangs it there too); a subagent's own subagents likewise.
Results are paired with calls by id within the same transcript; a call whose result is not on
the path has none.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.app.views.subagents import subagent_end
from explorer.store import Store, StoreError
from explorer.store.rows import db_id
from explorer.store.turn_reads import SubagentInfo, read_subagents
from explorer.tree.model import Message

MAX_DEPTH = 8  # subagents of subagents, at most this deep (a cycle stops here)


@dataclass(frozen=True)
class Result:
    text: str
    is_error: bool
    message_id: int


@dataclass(frozen=True)
class ToolCall:
    message_id: int
    use_id: str | None
    tool: str
    input: Any  # the parsed JSON arguments, or the raw text (Codex's apply_patch)
    result: Result | None
    agent: str | None = None  # the subagent whose transcript holds it

    def ref(self) -> dict[str, Any]:
        """How a report names the call."""
        return {"message": self.message_id, "call": self.use_id, "tool": self.tool,
                "agent": self.agent}


def path_calls(store: Store, conv_id: int, at: int) -> list[ToolCall]:
    """Every tool call on the path from the root to ``at``, in order, with its subagents'."""
    if store.message_conversation(at) != conv_id:
        raise StoreError(f"message {at} is not in conversation {conv_id}")
    by_call = {info.tool_use_id: info for info in read_subagents(store.reader, conv_id).values()
               if info.tool_use_id}
    return _calls(store, conv_id, store.path(conv_id, at), by_call, None, 0)


def _calls(store: Store, conv_id: int, path: Sequence[Message],
           by_call: dict[str, SubagentInfo], agent: str | None, depth: int) -> list[ToolCall]:
    results = {p.tool_use_id: Result(p.text, p.is_error, db_id(m.id))
               for m in path for p in m.parts if p.kind == "tool_result" and p.tool_use_id}
    out: list[ToolCall] = []
    for m in path:
        started: list[SubagentInfo] = []
        for p in m.tool_uses():
            out.append(ToolCall(db_id(m.id), p.tool_use_id, p.tool_name or "",
                                _arguments(p.text),
                                results.get(p.tool_use_id) if p.tool_use_id else None, agent))
            info = by_call.get(p.tool_use_id or "")
            if info is not None and depth < MAX_DEPTH:
                started.append(info)
        for info in started:
            sub = store.path(conv_id, subagent_end(store, info))
            out += _calls(store, conv_id, sub, by_call, info.name, depth + 1)
    return out


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text

