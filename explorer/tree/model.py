"""Plain data for messages and their parts, shared by every layer.

Ids are opaque: ``Message.id`` is whatever key the holder uses (a database
integer, or an importer's own string before storage). Imported identifiers
are kept in ``source_id`` / ``source_meta`` and never trusted as keys (T5).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
PartKind = Literal["text", "thinking", "tool_use", "tool_result", "image"]

ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool")
PART_KINDS: tuple[str, ...] = ("text", "thinking", "tool_use", "tool_result", "image")


@dataclass(slots=True)
class Part:
    """One ordered piece of a message.

    ``tool_use`` parts carry ``tool_name``, ``tool_use_id`` and their JSON
    arguments in ``text``; ``tool_result`` parts carry the ``tool_use_id`` they
    answer, their output in ``text`` and ``is_error``; ``image`` parts carry
    ``data`` (the bytes) and ``media_type``.
    """

    kind: PartKind
    text: str = ""
    tool_name: str | None = None
    tool_use_id: str | None = None
    is_error: bool = False
    data: bytes | None = None
    media_type: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in PART_KINDS:
            raise ValueError(f"unknown part kind {self.kind!r}")

    @property
    def size(self) -> int:
        """Characters of text, or bytes of an image."""
        return len(self.data) if self.data is not None else len(self.text)


@dataclass
class Usage:
    """Token counts a provider measured for one response."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None

    def to_dict(self) -> dict[str, int]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> Usage | None:
        if not d:
            return None
        known = {k: int(d[k]) for k in cls.__dataclass_fields__ if d.get(k) is not None}
        return cls(**known)


@dataclass(slots=True)
class Message:
    """A node of the session tree: it continues ``parent_id`` (None for a root)."""

    id: Hashable
    parent_id: Hashable | None
    role: Role
    parts: list[Part] = field(default_factory=list)
    created_at: float | None = None
    model: str | None = None
    usage: Usage | None = None
    source_id: str | None = None
    source_meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r}")

    @property
    def text(self) -> str:
        """The visible text parts joined, for previews, search and digests."""
        return "\n".join(p.text for p in self.parts if p.kind == "text" and p.text)

    def tool_uses(self) -> list[Part]:
        return [p for p in self.parts if p.kind == "tool_use"]

    def tool_results(self) -> list[Part]:
        return [p for p in self.parts if p.kind == "tool_result"]

    @property
    def is_tool_result_only(self) -> bool:
        """True for messages that only return tool output (not a new prompt)."""
        return bool(self.parts) and all(p.kind == "tool_result" for p in self.parts)

    @property
    def is_prompt(self) -> bool:
        """A user message a person wrote: it opens a turn."""
        return self.role == "user" and not self.is_tool_result_only


def text_message(
    id: Hashable, parent_id: Hashable | None, role: Role, text: str, **kw: Any
) -> Message:
    """Shorthand for a message with a single text part."""
    return Message(id=id, parent_id=parent_id, role=role, parts=[Part("text", text)], **kw)
