"""The digest a rewind keeps of the exploration it leaves behind (C3).

Deterministic: the same explored messages always give the same digest, so it
can be stored, shown on the explored path and carried into the next request.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from explorer.tree.model import Message


def exploration_digest(explored: Sequence[Message]) -> dict[str, Any]:
    """Turns, tool calls by name, errors and the last assistant line."""
    calls: Counter[str] = Counter()
    errors = 0
    for m in explored:
        for p in m.parts:
            if p.kind == "tool_use":
                calls[p.tool_name or "?"] += 1
            elif p.kind == "tool_result" and p.is_error:
                errors += 1
    return {
        "messages": len(explored),
        "turns": sum(1 for m in explored if m.is_prompt),
        "tool_calls": dict(sorted(calls.items())),
        "errors": errors,
        "last_assistant_line": _last_assistant_line(explored),
    }


def _last_assistant_line(explored: Sequence[Message]) -> str:
    for m in reversed(explored):
        if m.role != "assistant":
            continue
        lines = [ln.strip() for ln in m.text.splitlines() if ln.strip()]
        if lines:
            return lines[-1][:200]
    return ""


def digest_text(digest: dict[str, Any]) -> str:
    """One human line for the digest, as shown on the path and in a request."""
    calls = ", ".join(f"{n}×{c}" for n, c in digest.get("tool_calls", {}).items()) or "none"
    out = (
        f"Explored {digest.get('turns', 0)} turn(s), {digest.get('messages', 0)} message(s); "
        f"tool calls: {calls}; errors: {digest.get('errors', 0)}."
    )
    if digest.get("last_assistant_line"):
        out += f" Last answer: {digest['last_assistant_line']}"
    return out
