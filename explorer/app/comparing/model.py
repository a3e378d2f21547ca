"""What a comparison is made of: columns, rows of cells, cells of messages, parts as spans.

Plain data, shared by the window, ``convo compare`` and its JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.app.comparing.diff import Mode, Span
from explorer.tree.errors import ExplorerError


class CompareError(ExplorerError, ValueError):
    """The chosen messages cannot be compared; the text says why."""


@dataclass(frozen=True)
class CellPart:
    """One part of a message (text, thinking, a tool call or result, an image) as spans."""

    kind: str
    tool_name: str | None
    is_error: bool
    spans: tuple[Span, ...]
    image: bytes | None = field(default=None, repr=False)
    """An image part's bytes, for the window's thumbnail (text views say ``[image]``)."""

    @property
    def text(self) -> str:
        """The column's own words (base text it lacks and skipped runs left out)."""
        return "".join(s.text for s in self.spans if s.own)


@dataclass(frozen=True)
class CellMessage:
    """One message of a cell: its heading is shown, its parts are diffed."""

    message_id: int
    role: str
    heading: str
    parts: tuple[CellPart, ...]

    @property
    def spans(self) -> tuple[Span, ...]:
        return tuple(s for p in self.parts for s in p.spans)

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if p.text)


@dataclass(frozen=True)
class Cell:
    """The messages of one turn of one column; empty when that column has fewer turns."""

    messages: tuple[CellMessage, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.messages

    @property
    def text(self) -> str:
        return "\n".join(m.text for m in self.messages)

    def marked(self) -> list[Span]:
        """The spans that differ from the base column (added, changed, or base text lacked)."""
        return [s for m in self.messages for s in m.spans
                if s.kind in ("insert", "replace", "delete")]


@dataclass(frozen=True)
class Column:
    """One branch: the path below the shared ancestor down to that branch's newest leaf."""

    chosen_id: int
    leaf_id: int
    message_ids: tuple[int, ...]
    models: tuple[str, ...]
    started_at: float | None
    output_tokens: int | None
    turns: int
    description: str
    label: str = ""
    same_as_base: bool = False
    changes: int = 0


@dataclass(frozen=True)
class Comparison:
    """``rows[k][j]`` is turn k of column j; ``ancestor_id`` is None for separate roots."""

    conversation_id: int
    ancestor_id: int | None
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    base: int = 0
    mode: Mode = "words"
    changes_only: bool = False
    same_rows: tuple[bool, ...] = ()
    active: int | None = None  # the column holding the conversation's tip

    @property
    def identical(self) -> bool:
        """Every column says word for word what the base says."""
        return all(c.same_as_base for c in self.columns)

    def letter(self, j: int) -> str:
        return chr(ord("A") + j)
