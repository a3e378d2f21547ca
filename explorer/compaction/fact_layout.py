"""How the fact sheet is written: compact, and read back to the exact strings (``expand``).

A sheet of one string a line spends a newline token on every string and repeats a directory
in every path: a grep's hundred hits cost a hundred file names. Here a directory is written
once with the names in it, a file's line numbers follow its colon as runs (``12,40-44``),
hashes, ids and versions share one line per kind, and a bare number carries the word beside it
(``port 8080``), without which it says nothing; a string the person pinned has a line of its
own. ``expand`` undoes the layout; the tests hold
that every string the sheet carries comes back from its text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol

HEADER = "Exact strings from the pages above."
DIR_NOTE = "A line starting with a directory lists files under it."
LINE_NOTE = "file:3,7-9 means its lines 3 and 7 to 9."
KIND_LINES = (("hash", "hashes"), ("uuid", "uuids"), ("id", "ids"), ("version", "versions"))
PATH_KINDS = ("path", "location", "url")
NUMBER_SEP = "; "
PINNED = "pinned"  # a string the person pinned (L8): one line each, written whole
PINNED_NOTE = "The sheet grew by {n} pinned string(s) the person asked to keep as text."
KIND_NAMES = {  # a left-out kind as the note names it
    "location": "file:line locations", "path": "paths", "url": "URLs", "hash": "hashes",
    "uuid": "UUIDs", "id": "ids", "version": "versions",
}
_LOCATION = re.compile(r"(.*?\.[A-Za-z0-9]{1,8}):(\d+(?::\d+|-\d+)?)")  # a span: a read's lines
_POSITIONS = re.compile(r"(.*?\.[A-Za-z0-9]{1,8}):(\d[\d,:-]*)")
_RANGE = re.compile(r"(\d+)-(\d+)")
RUN = 3  # consecutive line numbers written as a range from this many on


class FactLike(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def context(self) -> str: ...


def _split_location(value: str, kind: str) -> tuple[str, str | None]:
    """(file, line position or None) of a path-like string."""
    m = _LOCATION.fullmatch(value) if kind == "location" else None
    return (m.group(1), m.group(2)) if m else (value, None)


def _dirs(file: str) -> list[str]:
    """The directories ``file`` lies under that a line may name, each with its separator."""
    if any(c.isspace() for c in file):
        return []
    floor = file.find("://") + 3 if "://" in file else 0
    cuts = [i for i, c in enumerate(file) if c in "/\\" and floor <= i < len(file) - 1]
    return [file[: i + 1] for i in cuts if i > 0]


GROUP_SAVES = 12  # characters a directory line must save to be worth its own line


def _groups(files: list[str]) -> dict[str, list[str]]:
    """Files under the directories that save the most characters written once, greedily."""
    left = set(files)
    out: dict[str, list[str]] = {}
    while True:
        under: dict[str, list[str]] = {}
        for f in left:
            for d in _dirs(f):
                under.setdefault(d, []).append(f)
        if not under:
            break
        best = max(under, key=lambda d: ((len(under[d]) - 1) * len(d), d))
        if (len(under[best]) - 1) * len(best) - len(best) < GROUP_SAVES:
            break
        out[best] = sorted(under[best])
        left -= set(under[best])
    return out


def _runs(positions: Sequence[str]) -> str:
    """Line positions sorted, consecutive ones as ``a-b``; ``line:col`` and spans kept whole."""
    def key(p: str) -> tuple[int, int]:
        line, _, col = p.replace("-", ":").partition(":")
        return int(line), int(col or 0)

    def single(p: str) -> bool:  # a bare line: neither line:col nor a span already
        return p.isdigit()

    spans = [key(p) for p in positions if "-" in p]
    ordered = sorted((p for p in dict.fromkeys(positions)  # a line a span holds is written once
                      if not (single(p) and any(a <= int(p) <= b for a, b in spans))), key=key)
    out: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while (j + 1 < len(ordered) and single(ordered[j + 1]) and single(ordered[i])
               and key(ordered[j + 1])[0] == key(ordered[j])[0] + 1):
            j += 1
        if j - i + 1 >= RUN:
            out.append(f"{ordered[i]}-{ordered[j]}")
        else:
            out += ordered[i : j + 1]
        i = j + 1
    return ",".join(out)


def _path_lines(facts: Iterable[FactLike]) -> tuple[list[str], list[str], bool]:
    """Directory lines, strings that stand alone, and whether any line numbers were written."""
    files: dict[str, list[str]] = {}
    for f in facts:
        file, pos = _split_location(f.value, f.kind)
        files.setdefault(file, [])
        if pos is not None:
            files[file].append(pos)

    def item(file: str, name: str) -> str:
        return f"{name}:{_runs(files[file])}" if files[file] else name

    groups = _groups(list(files))
    grouped = {f for names in groups.values() for f in names}
    lines = [f"{d} {' '.join(item(f, f[len(d):]) for f in groups[d])}" for d in sorted(groups)]
    alone = [item(f, f) for f in files if f not in grouped]
    return lines, alone, any(positions for positions in files.values())


def _number_item(f: FactLike) -> str:
    if not f.context:
        return f.value
    return f"{f.context}{f.value}" if f.context[-1] in " =:" else f"{f.value}{f.context}"


def one_line(text: str) -> str:
    """A pinned string as its sheet line writes it (its line breaks as spaces)."""
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def layout(facts: Sequence[FactLike], note: str = "") -> str:
    """The sheet's text for ``facts`` (empty when there are none), ``note`` on its last line."""
    if not facts and not note:
        return ""
    paths = [f for f in facts if f.kind in PATH_KINDS]
    dir_lines, alone, has_lines = _path_lines(paths)
    body: list[str] = []
    for kind, label in KIND_LINES:
        values = [f.value for f in facts if f.kind == kind]
        if values:
            body.append(f"{label}: {' '.join(values)}")
    body += dir_lines
    spaced = [a for a in alone if any(c.isspace() for c in a)]
    plain = [a for a in alone if a not in spaced]
    if plain:
        body.append(f"paths: {' '.join(plain)}")
    body += spaced
    known = {k for k, _ in KIND_LINES} | set(PATH_KINDS) | {PINNED}
    numbers = [_number_item(f) for f in facts if f.kind not in known]
    if numbers:
        body.append(f"numbers: {NUMBER_SEP.join(numbers)}")
    pinned = [f.value for f in facts if f.kind == PINNED]
    body += [f"{PINNED}: {one_line(v)}" for v in pinned]
    head = " ".join([HEADER, *([DIR_NOTE] if dir_lines else []),
                     *([LINE_NOTE] if has_lines else []),
                     *([PINNED_NOTE.format(n=len(pinned))] if pinned else [])])
    return "\n".join([head, *body, *([note] if note else [])])


def _expand_name(d: str, item: str) -> list[str]:
    m = _POSITIONS.fullmatch(item)
    file, positions = (m.group(1), m.group(2).split(",")) if m else (item, [])
    out = [d + file]
    for pos in positions:
        out.append(f"{d}{file}:{pos}")  # a span as written is a string the sheet carries too
        m = _RANGE.fullmatch(pos)
        if m:
            out += [f"{d}{file}:{n}" for n in range(int(m.group(1)), int(m.group(2)) + 1)]
    return out


def expand(text: str) -> list[str]:
    """The strings a sheet's text carries, as a reader would take them from it."""
    out: list[str] = []
    for line in text.splitlines()[1:]:
        head, _, rest = line.partition(" ")
        if head == f"{PINNED}:":
            out.append(rest)
        elif head == "numbers:":
            out += rest.split(NUMBER_SEP)
        elif head.endswith(":") and rest:
            out += [n for item in rest.split(" ") for n in _expand_name("", item)]
        elif head.endswith(("/", "\\")) and rest:
            out += [n for item in rest.split(" ") for n in _expand_name(head, item)]
        else:
            out.append(line)
    return out


def left_out_note(count: int, kinds: dict[str, int]) -> str:
    """The sheet's last line when a cap left strings out: how many, and of which kinds."""
    named: dict[str, int] = {}
    for kind, n in kinds.items():
        label = KIND_NAMES.get(kind, "numbers")
        named[label] = named.get(label, 0) + n
    parts = ", ".join(f"{n} {label}" for label, n in sorted(named.items(), key=lambda e: -e[1]))
    return f"({count} more left out to keep this sheet short: {parts}; they are on the pages)"
