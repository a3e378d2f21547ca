"""Reading a JSON Lines session from where the last read stopped.

Agents append to their session files while they run. A sync must read only
what was appended, so the reader starts at a byte offset and consumes only
*complete* lines: a last line without its newline is being written right now,
and is left for the next read instead of being reported as damaged. The
importer's own small state (the last message key, the current model, ...)
travels with the offset in a :class:`Cursor`, so a tail read builds exactly
the messages a whole read would have built for those lines.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from explorer.formats import fast_json
from explorer.formats.base import ImportedConversation
from explorer.formats.jsonl import SkippedLine


@dataclass
class Cursor:
    """Where a read stopped: bytes and lines consumed, and the importer's state."""

    offset: int = 0
    line: int = 0
    state: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "line": self.line, "state": self.state}

    @classmethod
    def from_json(cls, value: object) -> Cursor | None:
        if not isinstance(value, dict):
            return None
        offset, line, state = value.get("offset"), value.get("line"), value.get("state")
        if not isinstance(offset, int) or not isinstance(line, int) or not isinstance(state, dict):
            return None
        return cls(offset, line, dict(state))


@dataclass
class Tail:
    """What a read from a cursor found: new messages (parents may be stored ones)."""

    conversation: ImportedConversation
    cursor: Cursor


class TailUnplaceable(Exception):
    """The appended lines cannot be read on their own; the caller reads the whole file."""


@dataclass(frozen=True)
class Line:
    number: int
    raw: bytes
    value: dict[str, Any]
    offset: int = 0  # where the line starts, in bytes

    @cached_property
    def key(self) -> str:
        """A key for what this line says, stable when the file is rewritten around it."""
        return hashlib.sha1(self.raw.rstrip(b"\r\n")).hexdigest()[:16]


@dataclass
class LineTail:
    """Iterate the complete lines after ``cursor``; ``end`` is where the next read starts.

    With ``whole=True`` (an import, not a sync) a last line without a newline is
    read too, and reported as truncated when it does not parse.
    """

    path: Path
    start: Cursor
    whole: bool = False
    skipped: list[SkippedLine] = field(default_factory=list)
    end: Cursor = field(init=False)

    def __post_init__(self) -> None:
        self.end = Cursor(self.start.offset, self.start.line, self.start.state)

    def __iter__(self) -> Iterator[Line]:
        with self.path.open("rb") as handle:
            handle.seek(self.start.offset)
            number, offset = self.start.line, self.start.offset
            for raw in handle:
                if not raw.endswith(b"\n") and not self.whole:
                    break
                number += 1
                start, offset = offset, offset + len(raw)
                if raw.endswith(b"\n"):
                    self.end.offset, self.end.line = offset, number
                value = self._parse(number, raw)
                if value is not None:
                    yield Line(number, raw, value, start)

    def _parse(self, number: int, raw: bytes) -> dict[str, Any] | None:
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if not raw.strip():
            return None
        try:
            value = fast_json.loads(raw)
        except UnicodeDecodeError as exc:
            self.skipped.append(SkippedLine(number, f"not valid UTF-8 ({exc.reason})"))
            return None
        except (ValueError, RecursionError):
            reason = ("truncated last line (no newline and not valid JSON)"
                      if not raw.endswith(b"\n") else "invalid JSON")
            self.skipped.append(SkippedLine(number, reason))
            return None
        if not isinstance(value, dict):
            self.skipped.append(SkippedLine(number, "not a JSON object"))
            return None
        return value


class LineBuilder(Protocol):
    """What a tailing reader turns lines into: a conversation, and the small state the next
    read from the cursor needs to go on."""

    conv: ImportedConversation
    state: dict[str, Any]

    def add(self, line: Line) -> None: ...


def read_lines(path: Path, cursor: Cursor | None, whole: bool,
               make: Callable[[Path, dict[str, Any]], LineBuilder]) -> Tail:
    """The lines after ``cursor`` (all of them for None) through a builder ``make`` gives
    (from the path and the cursor's state), with the skipped lines named in its notes."""
    from explorer.formats.jsonl import skipped_notes

    start = cursor or Cursor()
    lines = LineTail(path, start, whole=whole)
    builder = make(path, dict(start.state))
    for line in lines:
        builder.add(line)
    builder.conv.notes[:0] = skipped_notes(lines.skipped)
    lines.end.state = builder.state
    return Tail(builder.conv, lines.end)
