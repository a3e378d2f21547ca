"""Reading a huge top-level JSON array one element at a time.

Exports such as ChatGPT's ``conversations.json`` reach gigabytes; loading them
whole would need many times their size in memory. Each element is decoded with
``json.JSONDecoder.raw_decode`` straight from a sliding text buffer, reading on
(at least doubling what is held) while the element is incomplete, so retries stay
linear. Memory stays at about one element plus one chunk.

A broken element is stepped over with a small resumable scanner (strings,
escapes and nesting are tracked across chunk boundaries) and reported in
``Element.error``; reading goes on, so one bad conversation never costs the rest.
"""

from __future__ import annotations

import codecs
import gc
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from explorer.formats.base import FormatError

CHUNK = 1 << 16
RELEASE_CHARS = 1 << 20
_WS = re.compile(r"[ \t\r\n]*")
_STRUCT = re.compile(r'[\[\]{}"]')
_STRING_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_SCALAR = re.compile(r"[^,\]}\s]*")


class Readable(Protocol):
    """What the reader needs from a file: ``read(size)`` returning bytes."""

    def read(self, size: int = -1, /) -> bytes: ...


class FirstWinsDict(dict[str, Any]):
    """A JSON object that had repeated keys; the first value of each was kept."""

    duplicate_keys: list[str]


def _first_wins(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    kept = FirstWinsDict()
    kept.duplicate_keys = []
    for key, value in pairs:
        if key in kept:
            kept.duplicate_keys.append(key)
        else:
            kept[key] = value
    return kept


DECODER = json.JSONDecoder(object_pairs_hook=_first_wins)


def duplicate_keys(obj: object) -> list[str]:
    """Keys that appeared more than once in ``obj`` as written in the file."""
    return list(obj.duplicate_keys) if isinstance(obj, FirstWinsDict) else []


@dataclass(frozen=True)
class Element:
    """One element of the array (or the lone top-level object).

    ``error`` is set when it could not be decoded (``value`` is then None) and
    for problems with the array itself (a missing ``]``, trailing bytes).
    """

    index: int
    offset: int
    value: Any = None
    error: str | None = None
    note: str | None = None
    """A repair made while reading it (bytes that were not UTF-8, replaced)."""


@dataclass
class _Scan:
    """Where the scanner stands inside the element being delimited."""

    pos: int
    depth: int = 0
    in_string: bool = False
    started: bool = False


@dataclass
class _Buffer:
    """Decoded text read so far, minus what earlier elements consumed."""

    fp: Readable
    chunk_size: int
    text: str = ""
    dropped: int = 0  # characters discarded before ``text`` starts
    eof: bool = False
    read_bytes: int = 0
    note: str | None = None  # a repair not yet told (bytes replaced)
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8-sig")()
    )

    def more(self, keep_from: int, want: int = 0) -> int:
        """Drop text before ``keep_from`` and read at least one chunk; returns the shift."""
        self.text = self.text[keep_from:]
        self.dropped += keep_from
        size = max(self.chunk_size, want)
        raw = self.fp.read(size)
        self.text += self._decode(raw)
        self.read_bytes += len(raw)
        if not raw:
            self.eof = True
        return keep_from

    def _decode(self, raw: bytes) -> str:
        """UTF-8, and from the first byte that is not, U+FFFD in its place (noted with its
        byte offset): one bad byte no longer refuses a whole export."""
        pending = bytes(self.decoder.getstate()[0])
        try:
            return self.decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as e:
            at = self.read_bytes - len(pending) + e.start
            self.note = (f"bytes from byte offset {at} on are not UTF-8 ({e.reason}); "
                         "they are shown as \ufffd")
            codec = "utf-8-sig" if self.read_bytes - len(pending) == 0 else "utf-8"
            self.decoder = codecs.getincrementaldecoder(codec)(errors="replace")
            return self.decoder.decode(pending + raw, final=not raw)

    def take_note(self) -> str | None:
        note, self.note = self.note, None
        return note

    def release(self, pos: int) -> int:
        """Free the text before ``pos`` once it is large (a big element just decoded)."""
        if pos < RELEASE_CHARS:
            return pos
        self.text = self.text[pos:]
        self.dropped += pos
        return 0

    def skip_ws(self, pos: int) -> int:
        """Position of the next non-space character, reading on as needed; may equal len."""
        while True:
            m = _WS.match(self.text, pos)
            end = m.end() if m else pos
            if end < len(self.text) or self.eof:
                return end
            pos = end - self.more(end)


def iter_elements(fp: Readable, chunk_size: int = CHUNK) -> Iterator[Element]:
    """Yield each element of a top-level array, or the single top-level object."""
    buf = _Buffer(fp, chunk_size)
    pos = buf.skip_ws(0)
    if pos >= len(buf.text):
        raise FormatError("the file is empty")
    first = buf.text[pos]
    if first == "{":
        yield from _lone_object(buf, pos)
        return
    if first != "[":
        raise FormatError(f"expected a JSON array or object, found {first!r} at the start")
    yield from _array(buf, pos + 1)


def _problem(buf: _Buffer, index: int, pos: int, error: str) -> Element:
    return Element(index, buf.dropped + pos, error=error)


def _lone_object(buf: _Buffer, pos: int) -> Iterator[Element]:
    element, pos = _read_element(buf, pos, 0)
    yield element
    pos = buf.skip_ws(pos)
    if pos < len(buf.text):
        yield _problem(buf, 1, pos, "unexpected data after the object; ignored")


def _array(buf: _Buffer, pos: int) -> Iterator[Element]:
    index = 0
    pos = buf.skip_ws(pos)
    if pos < len(buf.text) and buf.text[pos] == "]":
        return
    while True:
        pos = buf.skip_ws(pos)
        if pos >= len(buf.text):
            yield _problem(buf, index, pos, "the file ends inside the array (no ']')")
            return
        element, pos = _read_element(buf, pos, index)
        pos = buf.release(pos)
        decoded = element.error is None
        held = [element]
        del element  # so that only the consumer keeps the value alive
        yield held.pop()
        index += 1
        pos = buf.skip_ws(pos)
        if pos >= len(buf.text):
            if decoded:
                yield _problem(buf, index, pos, "the file ends without the closing ']'")
            return
        sep = buf.text[pos]
        if sep == "]":
            pos = buf.skip_ws(pos + 1)
            if pos < len(buf.text):
                yield _problem(buf, index, pos, "unexpected data after the array; ignored")
            return
        if sep == ",":
            pos += 1
        elif sep in "{[":
            yield _problem(buf, index, pos, "missing ',' before this element")
        else:
            yield _problem(buf, index, pos, f"expected ',' or ']', found {sep!r}; stopped reading")
            return


def _read_element(buf: _Buffer, start: int, index: int) -> tuple[Element, int]:
    """Decode the element starting at ``start``, reading on while it is incomplete.

    Decoding is tried first (fast, in C); only a broken element is delimited by
    the scanner, so that reading can go on after it.
    """
    while True:
        try:
            value, end = _decode(buf.text, start)
        except json.JSONDecodeError as e:
            if buf.eof or not _looks_truncated(e, buf.text):
                problem = f"invalid JSON: {e.msg} at character {buf.dropped + e.pos}"
                return _skip(buf, start, index, problem)
        except RecursionError:
            return _skip(buf, start, index, "nested too deeply to read")
        else:
            if end < len(buf.text) or buf.eof or buf.text[start] in '{["':
                return Element(index, buf.dropped + start, value=value,
                               note=buf.take_note()), end
        # Read at least as much again as the element has so far: keeps retries linear.
        start -= buf.more(start, want=len(buf.text) - start)


_TRUNCATED = "the file ends inside this element (truncated)"


def _decode(text: str, start: int) -> tuple[Any, int]:
    """``raw_decode`` with the cycle collector paused: decoding creates no cycles, and
    collections triggered by its many new containers would double the time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return DECODER.raw_decode(text, start)
    finally:
        if was_enabled:
            gc.enable()


def _looks_truncated(e: json.JSONDecodeError, text: str) -> bool:
    """True when more text could complete the element (the error is at its very end)."""
    return e.msg.startswith("Unterminated string") or e.pos >= len(text) - 64


def _skip(buf: _Buffer, start: int, index: int, problem: str) -> tuple[Element, int]:
    """Report a broken element and step past it, found by the structure scanner."""
    offset = buf.dropped + start
    start, end = _find_end(buf, start)
    if end is None:
        return Element(index, offset, error=_TRUNCATED), len(buf.text)
    return Element(index, offset, error=problem), end


def _find_end(buf: _Buffer, start: int) -> tuple[int, int | None]:
    """The element's (possibly moved) start and its end; end is None if the file ends first."""
    scan = _Scan(start)
    while True:
        end = _step(buf.text, scan)
        if end is not None or buf.eof:
            return start, end
        # Read at least as much again as the element has so far: keeps rescans linear.
        moved = buf.more(start, want=len(buf.text) - start)
        scan.pos -= moved
        start -= moved


def _step(text: str, scan: _Scan) -> int | None:
    """Scan as far as ``text`` allows; the end position once the element closes."""
    i, n = scan.pos, len(text)
    if not scan.started:
        if text[i] == '"':
            scan.in_string, scan.started, i = True, True, i + 1
        elif text[i] not in "[{":
            m = _SCALAR.match(text, i)
            end = m.end() if m else i
            if end < n:
                return end
            scan.pos = i
            return None
        scan.started = True
    while i < n:
        if scan.in_string:
            j = _STRING_BODY.match(text, i).end()  # type: ignore[union-attr]
            if j >= n:
                i = j
                break
            if text[j] == "\\":  # a lone backslash at the end: wait for its partner
                i = j
                break
            scan.in_string, i = False, j + 1
            if scan.depth == 0:
                return i
            continue
        m = _STRUCT.search(text, i)
        if m is None:
            i = n
            break
        c, i = m.group(), m.end()
        if c == '"':
            scan.in_string = True
        elif c in "[{":
            scan.depth += 1
        else:
            scan.depth -= 1
            if scan.depth <= 0:
                return i
    scan.pos = i
    return None


class _HasNotes(Protocol):
    notes: list[str]


T = TypeVar("T", bound=_HasNotes)


def carry_notes(items: Iterable[T | str], where: str) -> Iterator[T]:
    """Attach loose notes (skipped elements) to a neighbouring record.

    A note goes on the next record read; notes after the last record go on that
    one, which is why one record is held back. With notes and no record at all
    the input was unreadable, and the error says why.
    """
    held: T | None = None
    pending: list[str] = []
    for item in items:
        if isinstance(item, str):
            pending.append(item)
            continue
        if held is not None:
            yield held
        item.notes[:0] = pending
        pending = []
        held = item
    if held is not None:
        held.notes.extend(pending)
        yield held
    elif pending:
        raise FormatError(f"{where}: nothing could be read: " + "; ".join(pending))
