"""Codex's ``apply_patch`` format: read a patch, and apply its hunks to a file's text.

A patch names files (``*** Add File``, ``*** Delete File``, ``*** Update File`` with an
optional ``*** Move to``); an update's hunks carry no line numbers, only context: each is
found by its old lines (context and removals), after an optional ``@@ anchor`` line, from
where the previous hunk ended. Codex matches exactly first, then ignoring trailing spaces,
then ignoring surrounding spaces; so does :func:`apply_hunks`. A hunk that is not found is
reported, never skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

BEGIN, END = "*** Begin Patch", "*** End Patch"


@dataclass(frozen=True)
class Hunk:
    anchor: str | None
    old: tuple[str, ...]
    new: tuple[str, ...]
    at_end: bool = False  # "*** End of File": the old lines end the file


@dataclass
class FilePatch:
    action: str  # "add", "delete" or "update"
    path: str
    content: str = ""  # an added file's text
    move_to: str | None = None
    hunks: list[Hunk] = field(default_factory=list)


class PatchError(ValueError):
    """A hunk whose old lines are not in the file."""


def patch_text(value: str) -> str | None:
    """The patch inside ``value`` (a heredoc, a command's argument), or None."""
    start = value.find(BEGIN)
    if start < 0:
        return None
    end = value.find(END, start)
    return value[start:] if end < 0 else value[start:end + len(END)]


def parse_patch(text: str) -> list[FilePatch]:
    files: list[FilePatch] = []
    current: FilePatch | None = None
    hunk: dict[str, object] | None = None
    for line in text.splitlines():
        if line.startswith("*** ") and line.strip() in (BEGIN, END):
            continue
        head = _file_header(line)
        if head is not None:
            _close(current, hunk)
            current, hunk = FilePatch(*head), None
            files.append(current)
        elif current is None:
            continue
        elif line.startswith("*** Move to: "):
            current.move_to = line[len("*** Move to: "):].strip()
        elif current.action == "add":
            current.content += (line[1:] if line.startswith("+") else line) + "\n"
        elif line.startswith("@@"):
            _close(current, hunk)
            hunk = {"anchor": line[2:].strip() or None, "old": [], "new": []}
        elif line.strip() == "*** End of File":
            if hunk is not None:
                hunk["at_end"] = True
        elif current.action == "update":
            hunk = hunk or {"anchor": None, "old": [], "new": []}
            _line(hunk, line)
    _close(current, hunk)
    return files


def _file_header(line: str) -> tuple[str, str] | None:
    for action, mark in (("add", "*** Add File: "), ("delete", "*** Delete File: "),
                         ("update", "*** Update File: ")):
        if line.startswith(mark):
            return action, line[len(mark):].strip()
    return None


def _line(hunk: dict[str, object], line: str) -> None:
    old, new = hunk["old"], hunk["new"]
    assert isinstance(old, list) and isinstance(new, list)
    sign, body = (line[:1], line[1:]) if line[:1] in " +-" else (" ", line)
    if sign in " -":
        old.append(body)
    if sign in " +":
        new.append(body)


def _close(current: FilePatch | None, hunk: dict[str, object] | None) -> None:
    if current is None or hunk is None:
        return
    old, new, anchor = hunk["old"], hunk["new"], hunk["anchor"]
    assert isinstance(old, list) and isinstance(new, list)
    if old or new:
        current.hunks.append(Hunk(anchor if isinstance(anchor, str) else None, tuple(old),
                                  tuple(new), bool(hunk.get("at_end"))))


def apply_hunks(text: str, hunks: Sequence[Hunk]) -> str:
    """``text`` with every hunk applied in order; raises :class:`PatchError` naming the first
    hunk whose lines are not found."""
    lines = text.split("\n")
    trailing = lines[-1] == ""  # an empty file counts as ending its lines
    if trailing:
        lines.pop()
    at = 0
    for n, h in enumerate(hunks, 1):
        if h.anchor is not None:
            found = _find(lines, (h.anchor,), at)
            if found is None:
                raise PatchError(f"hunk {n}: the line {h.anchor!r} it follows is not found")
            at = found + 1
        if not h.old:
            place = len(lines) if h.at_end or h.anchor is None else at
            lines[place:place] = h.new
            at = place + len(h.new)
            continue
        found = _find(lines, h.old, at, h.at_end)
        if found is None:
            raise PatchError(f"hunk {n}: its {len(h.old)} old line(s) are not found "
                             f"(first: {h.old[0]!r})")
        lines[found:found + len(h.old)] = h.new
        at = found + len(h.new)
    return "\n".join(lines) + ("\n" if trailing and lines else "")


def _find(lines: list[str], old: Sequence[str], start: int, at_end: bool = False) -> int | None:
    for norm in (lambda s: s, str.rstrip, str.strip):
        want = [norm(s) for s in old]
        spots = range(len(lines) - len(old), start - 1, -1) if at_end else range(
            start, len(lines) - len(old) + 1)
        for i in spots:
            if all(norm(lines[i + k]) == w for k, w in enumerate(want)):
                return i
    return None
