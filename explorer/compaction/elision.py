"""L1: elision of old, uneventful tool results.

The result stays a ``tool_result`` with the same ``tool_use_id`` so every call
keeps its answer (providers reject unpaired calls); only its text becomes a
marker naming the tool and the size removed. Errors and the recent turns are
kept whole: they are where the incidents and the current work are.
Also home of what every rung shares: the protected recent window and the report.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from explorer.tree.model import Message, Part
from explorer.tree.turns import split_turns

DEFAULT_KEEP_TURNS = 3
MIN_ELIDE_CHARS = 256  # smaller results cost about what their marker would


@dataclass(frozen=True)
class Removal:
    """One thing a rung took out of the context."""

    message_id: Hashable
    part_index: int
    kind: str
    label: str
    size: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "message_id": jsonable_id(self.message_id),
            "part_index": self.part_index,
            "kind": self.kind,
            "label": self.label,
            "size": self.size,
        }


@dataclass(frozen=True)
class RungReport:
    """What one rung removed (sizes in characters, or bytes for images)."""

    rung: str
    removed: tuple[Removal, ...] = field(default_factory=tuple)

    @property
    def count(self) -> int:
        return len(self.removed)

    @property
    def size_removed(self) -> int:
        return sum(r.size for r in self.removed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rung": self.rung,
            "count": self.count,
            "size_removed": self.size_removed,
            "removed": [r.to_dict() for r in self.removed],
        }


def jsonable_id(value: Hashable) -> int | str:
    """Message ids are opaque; records keep ints and strings as they are."""
    return value if isinstance(value, int | str) else str(value)


def protected_from(path: Sequence[Message], keep_turns: int = DEFAULT_KEEP_TURNS) -> int:
    """Index where the protected window (the last ``keep_turns`` turns) starts.

    A path without any turn is protected whole: nothing tells old from recent.
    """
    if keep_turns <= 0:
        return len(path)
    turns = split_turns(path)
    if len(turns) <= keep_turns:
        return 0
    return turns[-keep_turns].start


def tool_names(path: Sequence[Message]) -> dict[str, str]:
    """``tool_use_id`` to the name of the tool that was called."""
    return {
        p.tool_use_id: p.tool_name or "tool"
        for m in path
        for p in m.parts
        if p.kind == "tool_use" and p.tool_use_id
    }


def elision_marker(tool: str, chars: int) -> str:
    return f"[elided: {tool} result, {chars:,} chars]"


def is_elidable(part: Part, min_chars: int = MIN_ELIDE_CHARS) -> bool:
    """An old result with no incident, large enough that a marker saves something."""
    return (
        part.kind == "tool_result"
        and not part.is_error
        and "elided" not in part.meta
        and len(part.text) > min_chars
    )


def elide(
    path: Sequence[Message],
    *,
    keep_turns: int = DEFAULT_KEEP_TURNS,
    min_chars: int = MIN_ELIDE_CHARS,
) -> tuple[list[Message], RungReport]:
    """Return the path with old uneventful tool results replaced by markers."""
    names = tool_names(path)
    cutoff = protected_from(path, keep_turns)
    out: list[Message] = []
    removed: list[Removal] = []
    for i, m in enumerate(path):
        if i >= cutoff or not any(is_elidable(p, min_chars) for p in m.parts):
            out.append(m)
            continue
        parts: list[Part] = []
        for j, p in enumerate(m.parts):
            if not is_elidable(p, min_chars):
                parts.append(p)
                continue
            tool = names.get(p.tool_use_id or "", "tool")
            chars = len(p.text)
            meta = {**p.meta, "elided": {"tool": tool, "chars": chars}}
            parts.append(replace(p, text=elision_marker(tool, chars), meta=meta))
            removed.append(Removal(m.id, j, "tool_result", tool, chars))
        out.append(replace(m, parts=parts))
    return out, RungReport("elide", tuple(removed))
