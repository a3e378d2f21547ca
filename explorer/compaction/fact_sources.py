"""Which file a tool's output shows, so the line numbers in it travel as ``file:N``.

A tool's output names lines without their file: a read prints the file's lines numbered
(Claude Code ``    12→code``, OpenCode ``12: code``), a grouped search prints the file once
and its hits under it (``notes.md:`` then ``  Line 40: …``). On the fact sheet a bare
``Line 40`` says nothing about where; tied to its file it is a location the model can act on.

The file is the nearest header line above the number in the output when there is one (a
search over many files), else the file the tool call read (its input's ``file_path``,
``filePath``, ``absolute_path``, ``notebook_path`` or ``path``, when that names a file).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable

FILE_KEYS = ("file_path", "filePath", "absolute_path", "notebook_path", "path")
# A file: ends in a name with an extension (a directory such as ``src/`` is not one).
_FILE = re.compile(r"(?:.*[/\\])?[\w.@+-]*\.[\w@+-]+")
_HEADER = re.compile(r"^[ \t]*(\S*?\.[A-Za-z0-9]{1,8}):[ \t]*$", re.M)
# A numbered line of a read: Claude Code's arrow, cat -n's tab, OpenCode's colon (its first
# line after ``<content>``), a bar.
_NUMBERED = re.compile(r"^(?:<content>)?[ \t]*(\d{1,7})(?:→|\t|: |:$|\| )", re.M)
_NUMBERS = re.compile(r"(\d+)(?:\s?[-–]\s?(\d+))?")
SPANS_AT_MOST = 20  # a read shows one span (or a few); more is not a file's numbering


def read_file(arguments: str) -> str | None:
    """The file a tool call's JSON input names, or None (a command, a directory, no JSON)."""
    try:
        data = json.loads(arguments)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    for key in FILE_KEYS:
        value = data.get(key)
        if isinstance(value, str) and _FILE.fullmatch(value):
            return value
    return None


def line_numbers(value: str) -> str | None:
    """``40`` of ``Line 40``, ``27-66`` of ``Lines 27 – 66``; None when it holds no number."""
    m = _NUMBERS.search(value)
    if m is None:
        return None
    return m.group(1) if m.group(2) is None else f"{m.group(1)}-{m.group(2)}"


class LineTies:
    """Ties ``Line N`` at a position of one tool output to the file that line belongs to."""

    def __init__(self, text: str, read: str | None) -> None:
        self._read = read
        found = [(m.start(), m.group(1)) for m in _HEADER.finditer(text)]
        self._at = [at for at, _ in found]
        self._names = [name for _, name in found]

    def file_at(self, position: int) -> str | None:
        """The header file above ``position``, else the file the call read."""
        i = bisect.bisect_right(self._at, position) - 1
        return self._names[i] if i >= 0 else self._read

    def location(self, position: int, value: str) -> str | None:
        """``file:N`` for a ``Line N`` fact at ``position``, or None when no file is known."""
        file = self.file_at(position)
        numbers = line_numbers(value)
        return f"{file}:{numbers}" if file and numbers else None


def _runs(numbers: Iterable[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in numbers:
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def numbered_spans(text: str) -> list[str]:
    """The line spans a read's numbered output shows (``1-250``), or [] when it is not one.

    Lines count only in consecutive runs, and an output whose numbers break into more than
    ``SPANS_AT_MOST`` runs is not a numbered file (a table, a log with counts).
    """
    numbers = [int(m.group(1)) for m in _NUMBERED.finditer(text)]
    if not numbers or (len(numbers) == 1 and numbers[0] != 1):
        return []
    runs = _runs(numbers)
    if len(runs) > SPANS_AT_MOST:
        return []
    return [str(a) if a == b else f"{a}-{b}" for a, b in runs]
