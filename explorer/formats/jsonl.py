"""A tolerant reader for JSON Lines files, shared by the line-based importers.

Real transcript files are appended to by programs that crash, get killed or are
edited by hand, so a bad line must never stop an import. The reader streams the
file one line at a time (a transcript can be far larger than memory allows as
one string), yields every line that holds a JSON object, and records every
other line with its number and the reason it was skipped, so the importer can
say exactly what it left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.formats import fast_json

_NOTE_LINE_LIMIT = 20

REPORT_EVERY_BYTES = 256 * 1024
"""How often a reader says how far into its file it is (and may be told to stop)."""
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON escape of a UTF-16 surrogate: the only way a strictly decoded line brings a lone one
(``text_repair``); a file with none needs no walk through its strings. Only a line the fast
parser refused is searched for one: it refuses every lone surrogate escape (a pair it
decodes), so a line it took holds none. Searching every line was 5 % of a huge session's
light read."""
READ_BUFFER = 1 << 16
"""Bytes read at a time. Lines of agent sessions run to kilobytes; with Python's 8 KiB
buffer, iterating the 186,516 lines of a 184 MB session took 0.16 s, with 64 KiB 0.09 s."""

read_progress: ContextVar[Callable[[int], None] | None] = ContextVar(
    "read_progress", default=None)
"""Called with the bytes read so far, every :data:`REPORT_EVERY_BYTES`, by whoever imports.

A single session file can hold 100,000 messages; without this an import's
progress would stand still until the whole file was parsed. The callback may
raise to stop the read (a cancel), which ends the import of that file.
"""


@dataclass(frozen=True)
class SkippedLine:
    """A line that was not a JSON object, and why."""

    line_number: int
    reason: str


@dataclass
class JsonlReader:
    """Iterate ``(line_number, object)`` pairs; collect skipped lines in ``skipped``.

    Line numbers start at 1. Whitespace-only lines hold nothing and are passed
    over without a record. A last line without a newline that does not parse
    is reported as truncated (the writer was cut off), not as invalid JSON.
    """

    path: Path
    skipped: list[SkippedLine] = field(default_factory=list)
    lines_read: int = 0
    line_offset: int = 0  # where the line last yielded starts, in bytes
    surrogate_escapes: bool = False  # a line held ``\\ud800``-``\\udfff``: text may need repair

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        report = read_progress.get()
        done = reported = 0
        with self.path.open("rb", buffering=READ_BUFFER) as handle:
            for number, raw in enumerate(handle, start=1):
                self.lines_read = number
                done += len(raw)
                if report is not None and done - reported >= REPORT_EVERY_BYTES:
                    reported = done
                    report(done)
                obj = self._parse(number, raw)
                if obj is not None:
                    self.line_offset = done - len(raw)
                    yield number, obj

    def _parse(self, number: int, raw: bytes) -> dict[str, Any] | None:
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if not raw.strip():
            return None
        try:  # the usual line: valid UTF-8 and JSON the fast parser takes
            value = fast_json.loads_fast(raw)
        except ValueError:  # json takes it, or says why it is skipped
            return self._parse_slowly(number, raw)
        if isinstance(value, dict):
            return value
        self._not_object(number, value)
        return None

    def _parse_slowly(self, number: int, raw: bytes) -> dict[str, Any] | None:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._skip(number, f"not valid UTF-8 ({exc.reason} at byte {exc.start})")
            return None
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:
            if not raw.endswith(b"\n"):
                self._skip(number, "truncated last line (no newline and not valid JSON)")
            else:
                self._skip(number, f"invalid JSON ({_short_error(exc)})")
            return None
        if not isinstance(value, dict):
            self._not_object(number, value)
            return None
        if not self.surrogate_escapes and SURROGATE_ESCAPE.search(raw) is not None:
            self.surrogate_escapes = True  # (see SURROGATE_ESCAPE)
        return value

    def _not_object(self, number: int, value: Any) -> None:
        self._skip(number, f"not a JSON object (a {_json_kind(value)})")

    def _skip(self, number: int, reason: str) -> None:
        self.skipped.append(SkippedLine(number, reason))


def skipped_notes(skipped: list[SkippedLine], *, limit: int = _NOTE_LINE_LIMIT) -> list[str]:
    """One note per reason, naming the line numbers (the first ``limit`` of them)."""
    by_reason: dict[str, list[int]] = {}
    for line in skipped:
        by_reason.setdefault(line.reason, []).append(line.line_number)
    notes = []
    for reason, numbers in by_reason.items():
        shown = ", ".join(str(n) for n in numbers[:limit])
        more = f" and {len(numbers) - limit} more" if len(numbers) > limit else ""
        word = "line" if len(numbers) == 1 else "lines"
        notes.append(f"skipped {word} {shown}{more}: {reason}")
    return notes


def peek_objects(path: Path, *, max_bytes: int = 65536, max_objects: int = 20) -> list[Any]:
    """The JSON values of the first complete lines within ``max_bytes`` (for sniffing).

    Lines that do not parse are left out; an over-long first line gives an empty
    list, so callers that need it can fall back to looking at :func:`peek_prefix`.
    """
    values: list[Any] = []
    with path.open("rb") as handle:
        head = handle.read(max_bytes)
    lines = head.split(b"\n")
    if len(head) == max_bytes:
        lines = lines[:-1]
    for raw in lines:
        if len(values) >= max_objects:
            break
        if not raw.strip():
            continue
        try:
            values.append(json.loads(raw.decode("utf-8").lstrip("\ufeff")))
        except (ValueError, RecursionError):
            continue
    return values


def peek_prefix(path: Path, *, max_bytes: int = 65536) -> bytes:
    """The first ``max_bytes`` bytes of a file."""
    with path.open("rb") as handle:
        return handle.read(max_bytes)


def _json_kind(value: Any) -> str:
    names = {list: "list", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _short_error(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc).split(":")[0]
