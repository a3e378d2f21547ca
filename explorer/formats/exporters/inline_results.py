"""A message that holds a tool call and its result (Open WebUI's executed tools,
claude.ai's tool blocks) split into call, result and the rest, as providers expect.

Without this the result would sit in the same message as its call, where no
request format can hold it: it would be demoted to text and the call reported
as interrupted. The pieces keep the message as their origin (same id, time and
model); usage stays on the first piece only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from explorer.tree.model import Message, Part, Role


def split_inline_results(path: Sequence[Message], notes: list[str]) -> list[Message]:
    """The path with each assistant message that answers its own calls split in pieces."""
    out: list[Message] = []
    for m in path:
        pieces = _pieces(m)
        if len(pieces) == 1:
            out.append(m)
            continue
        notes.append(f"message {m.id}: holds tool calls and their results; written as the "
                     f"call, its result and the rest ({len(pieces)} messages)")
        for n, (role, parts) in enumerate(pieces):
            out.append(replace(m, role=role, parts=parts, usage=m.usage if n == 0 else None))
    return out


def _pieces(m: Message) -> list[tuple[Role, list[Part]]]:
    if m.role != "assistant":
        return [(m.role, m.parts)]
    called: set[str] = set()
    pieces: list[tuple[Role, list[Part]]] = []
    for p in m.parts:
        inline = p.kind == "tool_result" and p.tool_use_id is not None and p.tool_use_id in called
        role: Role = "tool" if inline else "assistant"
        if p.kind == "tool_use" and p.tool_use_id:
            called.add(p.tool_use_id)
        if pieces and pieces[-1][0] == role:
            pieces[-1][1].append(p)
        else:
            pieces.append((role, [p]))
    return pieces if any(role == "tool" for role, _ in pieces) else [(m.role, m.parts)]
