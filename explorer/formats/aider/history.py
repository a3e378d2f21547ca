"""The pieces of aider's chat history markdown, line by line.

aider appends four kinds of text to ``.aider.chat.history.md`` (``aider/io.py``):

- ``# aider chat started at <time>``: a run began;
- ``#### <line>  `` lines: what the person typed (each line prefixed, two trailing spaces);
- ``> <text>  ``: aider's own output (model and version, token counts, "Applied edit to
  …"); a message with several lines is written after one ``> `` only, and ends in the
  two spaces;
- anything else, after a blank line: the model's answer, written whole when it is done.

A model's answer may itself hold ``> `` quotes and ``####`` headings, so inside an answer
only a blank line followed by a line that ends the way aider ends its own lines (two
spaces) starts aider's output or the person's next words. The markdown is otherwise
free text: nothing here is ever refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

SESSION = "# aider chat started at "
Kind = Literal["session", "user", "record", "assistant"]


@dataclass(frozen=True)
class Piece:
    kind: Kind
    text: str
    line: int  # the 1-based line it starts on
    offset: int  # the byte it starts at


@dataclass(frozen=True)
class Raw:
    text: str
    line: int
    offset: int
    end: int  # the byte after the line

    @property
    def body(self) -> str:
        return self.text.rstrip("\r\n")


def _ends_like_aider(raw: Raw) -> bool:
    return raw.body.endswith("  ")


def _is_user(raw: Raw) -> bool:
    return raw.body.startswith("####") and raw.body[4:5] in (" ", "") and _ends_like_aider(raw)


def _is_quote(raw: Raw) -> bool:
    return raw.body.startswith(">")


def _unquote(first: str) -> str:
    return first[2:] if first.startswith("> ") else first[1:]


def _trim(text: str) -> str:
    return text[:-2] if text.endswith("  ") else text.rstrip()


@dataclass
class Pieces:
    """Split ``lines`` into pieces; ``done`` is the byte after the last piece known whole.

    With ``whole=False`` (a sync of a file aider may still be writing) an output of
    several lines whose end has not been written yet is left for the next read.
    """

    lines: list[Raw]
    whole: bool

    def __iter__(self) -> Iterator[Piece]:
        lines, i, answer = self.lines, 0, False
        prev_blank, last = True, ""
        while i < len(lines):
            raw = lines[i]
            body = raw.body
            if body.startswith(SESSION):
                answer = False
                yield Piece("session", body[len(SESSION):].strip(), raw.line, raw.offset)
                last = "session"
                i += 1
            elif _is_user(raw) and (prev_blank or not answer):
                j = i
                said: list[str] = []
                while j < len(lines) and _is_user(lines[j]):
                    said.append(_trim(lines[j].body[5:]))
                    j += 1
                answer = False
                text = "\n".join(said)
                yield Piece("user", "" if text == "<blank>" else text, raw.line, raw.offset)
                last = "user"
                i = j
            elif _is_quote(raw) and self._output(raw, answer, prev_blank, last):
                end = self._record_end(i)
                if end is None:
                    return  # its last line is still to come
                text = "\n".join([_unquote(raw.body), *(r.body for r in lines[i + 1:end + 1])])
                answer = False
                yield Piece("record", _trim(text).strip(), raw.line, raw.offset)
                last = "record"
                i = end + 1
            elif not body.strip():
                i += 1
            else:
                j = i + 1
                while j < len(lines) and not self._answer_ends(j):
                    j += 1
                text = "".join(r.text for r in lines[i:j]).strip()
                answer = True
                yield Piece("assistant", text, raw.line, raw.offset)
                last = "assistant"
                i = j
            prev_blank = i > 0 and not lines[i - 1].body.strip()

    @staticmethod
    def _output(raw: Raw, answer: bool, prev_blank: bool, last: str) -> bool:
        """Whether a ``>`` line is aider's: a quote after a blank line that does not end
        the way aider ends its lines opens the model's answer, unless it follows a run's
        start or aider's own output."""
        if _ends_like_aider(raw):
            return not answer or prev_blank
        return not answer and (not prev_blank or last in ("session", "record"))

    def _answer_ends(self, j: int) -> bool:
        raw = self.lines[j]
        if raw.body.startswith(SESSION):
            return True
        blank_before = not self.lines[j - 1].body.strip()
        return blank_before and (_is_user(raw) or (_is_quote(raw) and _ends_like_aider(raw)))

    def _record_end(self, i: int) -> int | None:
        """The last line of the output starting at line ``i``."""
        for j in range(i, len(self.lines)):
            raw = self.lines[j]
            if j > i and (raw.body.startswith(SESSION) or _is_user(raw) or _is_quote(raw)):
                return j - 1  # a line aider ended otherwise (a stray ">" line)
            if _ends_like_aider(raw) or (j == i and not raw.body[1:].strip()):
                return j
        return len(self.lines) - 1 if self.whole else None


def read_lines(data: bytes, first_line: int, first_offset: int, whole: bool) -> list[Raw]:
    """The complete lines of ``data`` (and a last one without newline when ``whole``)."""
    out: list[Raw] = []
    offset, number = first_offset, first_line
    for chunk in data.splitlines(keepends=True):
        if not chunk.endswith(b"\n") and not whole:
            break
        number += 1
        out.append(Raw(chunk.decode("utf-8", errors="replace"), number, offset,
                       offset + len(chunk)))
        offset += len(chunk)
    return out
