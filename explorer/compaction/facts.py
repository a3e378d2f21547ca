"""The fact sheet: exact strings from the imaged middle, kept as text beside the pages.

A model reading pixels can misread one character of a hash or a path and then
act on the wrong one. Identifiers, hashes, paths, URLs, versions and numbers
(quantities, durations, money, dates, times, line numbers, and bare numbers of
three digits or more, where one misread digit goes unnoticed) are the strings
that must be exact, so they travel as text as well: deduplicated, in order of
first appearance, under a size cap, and not when the verbatim start or end
already carries them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from explorer.compaction import fact_layout, fact_sources
from explorer.compaction.fact_layout import PINNED, layout, left_out_note
from explorer.tree.model import Message

DEFAULT_MAX_CHARS = 16_000  # about 4,000 tokens: every id of a long middle, as text

# A bare ``name.ext`` in code is an attribute or a module, not a file: ``res.json()``,
# ``font.h * 2``, ``cfg.db = x``, ``from shop.db import``. It is a path unless code follows it.
CODE_AFTER = (r"(?!\(|\[|\.\w|\s*[-+*/%]?=(?!=)|\s*[*+/%<>]\s*[\w(]|\s+-\s|"
              r"\s+import\b)")
# Order matters only for reporting a kind: overlapping matches keep the longest.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("url", re.compile(r"\b(?:https?|ftp|file)://[^\s<>\"'`)\]}]+[^\s<>\"'`)\]}.,;:!?]")),
    (
        "uuid",
        re.compile(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
            r"[0-9a-fA-F]{12}\b"
        ),
    ),
    (
        "path",
        re.compile(
            r"(?:(?<![\w/.~<-])(?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w.@+-]*[\w@+]"
            r"|\b[A-Za-z]:\\(?:[\w .@+-]+\\)*[\w.@+-]*[\w@+]"
            r"|\b(?:[\w@+-]+/)+[\w@+-]+\.[A-Za-z0-9]{1,8}\b"
            r"|(?<!\bfrom )(?<!\bimport )\b[\w-]+\.(?:py|pyi|js|ts|tsx|jsx|rs|go|c|h|cc|cpp|"
            r"hpp|java|kt|rb|php|cs|swift|sh|md|rst|txt|json|jsonl|toml|yaml|yml|ini|cfg|sql|"
            r"html|css|lock|log|csv|db|sqlite|png|jpg|svg)\b" + CODE_AFTER + ")"
        ),
    ),
    (
        "hash",
        re.compile(
            r"\b0x[0-9a-fA-F]+\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])"
            r"[0-9a-f]{7,128}\b"
        ),
    ),
    ("version", re.compile(r"\bv?\d+\.\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.]+)?\b|\bv\d+\.\d+\b")),
    (
        "id",
        re.compile(
            r"\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])"
            r"[A-Za-z][A-Za-z0-9]*[_-][A-Za-z0-9_-]{6,}\b"
        ),
    ),
    (
        "location",
        re.compile(r"(?<![\w/.~-])(?:[\w@+.~/-]*[\w@+])?\.[A-Za-z0-9]{1,8}:\d+(?::\d+)?\b"),
    ),
    ("line", re.compile(r"\b(?:[Ll]ines?|ln|L)\s?\d+(?:\s?[-–]\s?\d+)?\b")),
    (
        "date",
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2}|\s?UTC)?)?\b"
        ),
    ),
    (
        "time",
        re.compile(r"(?<![\w:.])\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?(?:UTC|GMT))?(?![\w:])"),
    ),
    (
        "money",
        re.compile(
            r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?![\w])"
            r"|(?<![\w.])\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP|dollars?|cents?)\b"
        ),
    ),
    ("duration", re.compile(r"\b\d+h\d+m(?:\d+s)?\b|\b\d+m\d+(?:\.\d+)?s\b")),
    (
        "quantity",
        re.compile(
            r"(?<![\w.])\d+(?:[.,]\d+)*\s?(?:[kKMGTP]i?B|bytes?|B|ms|µs|us|ns|s|sec|seconds?|min|"
            r"minutes?|h|hours?|days?|px|pt|%|tokens?|lines?|chars?|files?|MHz|GHz|Hz|°C|x)"
            r"(?![\w])"
        ),
    ),
    # A bare number: kept only from the narrative, and only with NUMBER_DIGITS digits or more.
    (
        "number",
        re.compile(r"(?<![\w.,:/#-])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|[.,:]\d)"),
    ),
)
NUMBER_DIGITS = 3  # "7" is read right; in "1,838" or "0.866" one digit misread goes unnoticed
NUMERIC_KINDS = ("location", "line", "date", "time", "money", "duration", "quantity", "number")


SHEET_HEADER = fact_layout.HEADER
# "port 8080", "len=2080", and a JSON key: '"duration_ms": 8127' is written "duration_ms 8127"
_BEFORE = re.compile(r"([A-Za-z][\w.-]{0,23})([\"']?)(=|: ?| )$")
_AFTER = re.compile(r"( [A-Za-z][\w-]{0,23})")  # "1838 of": what the number counts


@dataclass(frozen=True)
class Fact:
    kind: str
    value: str
    context: str = ""  # the word beside a bare number, written with it on the sheet


@dataclass(frozen=True)
class FactSheet:
    """Exact strings, in order of first appearance; ``omitted`` were over the cap."""

    facts: tuple[Fact, ...]
    omitted: int = 0
    in_verbatim: int = 0  # left out: the verbatim start or end already holds them as text
    left_out: tuple[tuple[str, int], ...] = ()  # (kind, count) of the omitted, most first

    @property
    def values(self) -> list[str]:
        return [f.value for f in self.facts]

    @cached_property
    def text(self) -> str:
        """The sheet as sent beside the pages (empty when there is nothing exact).

        Written compactly (``fact_layout``); a string that another one on the sheet already
        holds (a hash inside a path, a file inside its ``file:line``) is written once, inside
        the longer one. When a cap left strings out, the last line says how many, of which kinds.
        """
        note = left_out_note(self.omitted, dict(self.left_out)) if self.omitted else ""
        return layout(_not_contained(self.facts), note)

    def to_dict(self) -> dict[str, Any]:
        return {
            "facts": [{"kind": f.kind, "value": f.value} for f in self.facts],
            "omitted": self.omitted,
            "in_verbatim": self.in_verbatim,
            "left_out": dict(self.left_out),
        }


CONTAINMENT_WORK = 50_000_000  # characters scanned at most to find strings inside others


def _not_contained(facts: Sequence[Fact]) -> list[Fact]:
    """The facts no other fact's string holds (each is then written once, inside the longer)."""
    joined = "\n".join(f.value for f in facts)
    if len(joined) * len(facts) > CONTAINMENT_WORK:
        return list(facts)
    return [f for f in facts
            if f.kind in NUMERIC_KINDS or f.kind == PINNED or joined.count(f.value) < 2]


LONGEST_NAME = 100  # a longer run between slashes is data (base64), not a file or directory


def _not_a_path(value: str) -> bool:
    return any(len(name) > LONGEST_NAME for name in re.split(r"[/\\]", value))


_WEAK = frozenset({"a", "an", "and", "at", "by", "for", "from", "in", "is", "of", "on", "or",
                   "the", "to", "was", "were", "with", "about"})


def _context(text: str, start: int, end: int) -> str:
    """The word beside a bare number: the one before it (``port 8080``), or the one after it
    (``4711 rows``) when the one before says nothing (``in``, ``of``) or is not there."""
    before = _BEFORE.search(text, max(0, start - 27), start)
    after = _AFTER.match(text, end)
    weak = before is not None and before.group(1).lower() in _WEAK
    if before is not None and before.end() == start and (after is None or not weak):
        return before.group(1) + (" " if before.group(2) else before.group(3))
    return after.group(1) if after else ""


def find_facts(text: str) -> list[Fact]:
    """Facts in one text, in order; overlapping matches keep the longest span."""
    return [fact for _, fact in _found(text)]


def _found(text: str) -> list[tuple[int, Fact]]:
    """(where it starts, fact) of every fact in ``text``, in order."""
    spans: list[tuple[int, int, str]] = []
    for kind, pattern in PATTERNS:
        spans += [(m.start(), m.end(), kind) for m in pattern.finditer(text)]
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    out: list[tuple[int, Fact]] = []
    taken_until = -1
    for start, end, kind in spans:
        if start < taken_until:
            continue
        value = text[start:end]
        taken_until = end
        if kind in ("path", "location") and _not_a_path(value):
            continue
        if kind == "number":
            if sum(c.isdigit() for c in value) < NUMBER_DIGITS:
                continue
            out.append((start, Fact(kind, value, _context(text, start, end))))
        else:
            out.append((start, Fact(kind, value)))
    return out


NARRATIVE_KINDS = ("text", "thinking", "tool_use")
RARE_KINDS = ("uuid", "hash", "url", "id", "version")
MARKER_KEYS = frozenset({"elided", "dropped_image"})  # sizes in markers are not facts


def message_texts(messages: Iterable[Message]) -> Iterable[tuple[bool, str]]:
    """Every text a message carries, flagged when it is narrative (not tool output).

    Markers left by the free rungs are skipped: their sizes are not facts.
    """
    for m in messages:
        for p in m.parts:
            if p.kind != "image" and p.text and not MARKER_KEYS.intersection(p.meta):
                yield p.kind in NARRATIVE_KINDS, p.text


def sourced_facts(messages: Iterable[Message], files: dict[str, str] | None = None
                  ) -> Iterator[tuple[bool, Fact]]:
    """Every fact of ``messages``, flagged when from the narrative (as ``message_texts``).

    In a tool's output, ``Line N`` becomes ``file:N`` and a read's numbered lines their span
    (``file:1-250``), the file being the one the output or its call names (``fact_sources``).
    ``files`` (call id -> file read) carries that across calls made one message at a time.
    """
    files = {} if files is None else files
    for m in messages:
        for p in m.parts:
            if p.kind == "tool_use" and p.tool_use_id:
                named = fact_sources.read_file(p.text)
                if named is not None:
                    files[p.tool_use_id] = named
            if p.kind == "image" or not p.text or MARKER_KEYS.intersection(p.meta):
                continue
            narrative = p.kind in NARRATIVE_KINDS
            found = _found(p.text)
            if p.kind != "tool_result":
                yield from ((narrative, fact) for _, fact in found)
                continue
            read = files.get(p.tool_use_id or "")
            ties = fact_sources.LineTies(p.text, read)
            for at, fact in found:
                tied = ties.location(at, fact.value) if fact.kind == "line" else None
                yield narrative, (fact if tied is None else Fact("location", tied))
            if read is not None:
                for span in fact_sources.numbered_spans(p.text):
                    yield narrative, Fact("location", f"{read}:{span}")


def _tier(narrative: bool, fact: Fact) -> int:
    """What the cap keeps first: strings the narrative names, then rare kinds in outputs.

    A directory listing can hold hundreds of paths; they must not crowd out the
    one commit hash the conversation acted on. Numbers come after the strings of their
    kind of text: a misread id sends the model to the wrong thing, a misread number misquotes.
    """
    numeric = fact.kind in NUMERIC_KINDS
    if narrative:
        return 1 if numeric else 0
    return 2 if fact.kind in RARE_KINDS else 3


def fact_sheet(
    messages: Sequence[Message],
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    verbatim: Sequence[Message] = (),
    max_tokens: int | None = None,
    tokens: Callable[[str], int] | None = None,
    pinned: Sequence[str] = (),
) -> FactSheet:
    """Collect the exact strings of ``messages`` into a deduplicated sheet within its caps.

    A string the ``verbatim`` messages (the start and end sent as text) already hold is left
    out: the model has it exactly there. Bare numbers are taken from the narrative only (a
    tool's output can hold thousands of them, and its measured sizes are quantities). The
    sheet's text stays within ``max_chars`` and, given ``tokens`` (its price), ``max_tokens``;
    over a cap the strings the narrative names are kept first (``_tier``) and the last line
    says how many of which kinds were left out. A ``pinned`` string the middle holds (and the
    start and end do not) is carried first, on a line of its own (L8).
    """
    ranked, in_verbatim = _collect(messages, verbatim, pinned)

    def sheet(kept: int) -> FactSheet:
        chosen = sorted(ranked[:kept], key=lambda e: e[0])
        left: dict[str, int] = {}
        for _, fact in ranked[kept:]:
            left[fact.kind] = left.get(fact.kind, 0) + 1
        return FactSheet(tuple(f for _, f in chosen), len(ranked) - kept, in_verbatim,
                         tuple(sorted(left.items(), key=lambda e: -e[1])))

    def fits(s: FactSheet) -> bool:
        if len(s.text) > max_chars:
            return False
        return max_tokens is None or tokens is None or tokens(s.text) <= max_tokens

    whole = sheet(len(ranked))
    if fits(whole):
        return whole
    low, high = 0, len(ranked)  # sheet(low) fits (or keeps nothing), sheet(high) does not
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(sheet(mid)) else (low, mid)
    return sheet(low)


def _pins(messages: Sequence[Message], known: str, pinned: Sequence[str]
          ) -> dict[str, tuple[int, int, Fact]]:
    """The pinned strings the middle holds and the start and end do not, kept first."""
    if not pinned:
        return {}
    texts = [text for _, text in message_texts(messages)]
    held = [p for p in dict.fromkeys(pinned)
            if p and p not in known and any(p in t for t in texts)]
    return {p: (i, -1, Fact(PINNED, p)) for i, p in enumerate(held)}


def _collect(messages: Sequence[Message], verbatim: Sequence[Message], pinned: Sequence[str] = ()
             ) -> tuple[list[tuple[int, Fact]], int]:
    """Each string once, (order of first appearance, fact), best-kept first; and how many the
    verbatim start and end already hold."""
    known = "\n".join(text for _, text in message_texts(verbatim))
    first = _pins(messages, known, pinned)
    in_verbatim: set[str] = set()
    for narrative, fact in sourced_facts(messages):
        if fact.kind == "number" and not narrative:
            continue
        if fact.value in in_verbatim or (known and fact.value in known):
            in_verbatim.add(fact.value)
            continue
        tier = _tier(narrative, fact)
        seen = first.get(fact.value)
        if seen is None:
            first[fact.value] = (len(first), tier, fact)
        elif tier < seen[1]:
            first[fact.value] = (seen[0], tier, seen[2])
    ranked = sorted(first.values(), key=lambda e: (e[1], e[0]))
    return [(order, fact) for order, _, fact in ranked], len(in_verbatim)
