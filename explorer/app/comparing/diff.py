"""Pairwise differences of one turn: a column's own words against the base column's.

Every column is diffed against one base (by default the active answer), never
against "all the others": with three answers, a sentence that B shares with A
must not be marked in B because C lacks it. A column's own words are only ever
highlighted (added or changed); the base's words it lacks are shown struck
where they would have been, and the base column itself carries no marks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

from explorer.tree.model import Message, Part

SpanKind = Literal["equal", "insert", "replace", "delete", "skip"]
Mode = Literal["off", "words", "lines"]
MODES: tuple[Mode, ...] = ("off", "words", "lines")
TOOL_TEXT_LIMIT = 4000
CONTEXT_WORDS = 8
CONTEXT_LINES = 1
# Above this many token pairs the exact diff gets slow; difflib's junk heuristic keeps it quick.
EXACT_DIFF_LIMIT = 4_000_000
_WORD = re.compile(r"\s+|\S+\s*")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


@dataclass(frozen=True)
class Span:
    """A run of one part: ``equal``/``insert``/``replace`` are the column's own words,
    ``delete`` is base text this column lacks, ``skip`` stands for unchanged text left out."""

    kind: SpanKind
    text: str

    @property
    def own(self) -> bool:
        return self.kind in ("equal", "insert", "replace")


@dataclass(frozen=True)
class Token:
    """One word (or line) with the message and part it belongs to."""

    message: int
    part: int
    text: str

    @property
    def key(self) -> str:
        return self.text.strip()


def words(text: str) -> list[str]:
    """The text as words with their trailing white space: joined, they give it back exactly."""
    return _WORD.findall(text)


def lines(text: str) -> list[str]:
    return _LINE.findall(text)


def part_text(p: Part) -> str:
    """What a part says, as the text that is diffed (tool output cut at a readable length)."""
    if p.kind == "image":
        return f"[image {p.media_type or ''} {p.size / 1024:.1f} KB]".replace("  ", " ")
    text = p.text
    if p.kind == "tool_result" and len(text) > TOOL_TEXT_LIMIT:
        text = f"{text[:TOOL_TEXT_LIMIT]} [… {len(text) - TOOL_TEXT_LIMIT:,} more characters]"
    return text


def tokens(messages: Sequence[Message], mode: Mode) -> list[Token]:
    split = lines if mode == "lines" else words
    return [Token(i, j, t) for i, m in enumerate(messages) for j, p in enumerate(m.parts)
            for t in split(part_text(p))]


@dataclass
class PairDiff:
    """How one column's tokens relate to the base's: a kind per own token, and the base
    tokens it lacks, keyed by the own token they come before (``lost``) or after (``trailing``)."""

    kinds: list[SpanKind]
    lost: dict[int, list[Token]] = field(default_factory=dict)
    trailing: dict[int, list[Token]] = field(default_factory=dict)
    touched: set[int] = field(default_factory=set)  # base tokens this column changes or lacks

    @property
    def changed(self) -> int:
        lost = [t for d in (self.lost, self.trailing) for run in d.values() for t in run]
        return sum(1 for k in self.kinds if k != "equal") + sum(1 for t in lost if t.key)

    def changed_at(self, j: int) -> bool:
        return self.kinds[j] != "equal" or j in self.lost or j in self.trailing


def diff_pair(base: list[Token], col: list[Token], mode: Mode, base_roles: Sequence[str],
              col_roles: Sequence[str]) -> PairDiff:
    """Messages are paired by role first (prompt with prompt, answer with answer), so a lost
    answer never lands inside a prompt; a message with no partner is all new, and a base
    message with no partner is simply not there (the cell shows that on its own)."""
    out = PairDiff(["equal"] * len(col))
    if mode == "off" or not base or not col:  # a missing turn says enough on its own
        return out
    pairs = SequenceMatcher(None, list(base_roles), list(col_roles), autojunk=False)
    matched: dict[int, int] = {}
    for block in pairs.get_matching_blocks():
        for k in range(block.size):
            matched[block.b + k] = block.a + k
    for i in range(len(col_roles)):
        mine = [k for k, t in enumerate(col) if t.message == i]
        if i not in matched:
            for k in mine:
                out.kinds[k] = "insert"
            continue
        theirs = [k for k, t in enumerate(base) if t.message == matched[i]]
        _diff_range(base, col, theirs, mine, out)
    return out


def _diff_range(base: list[Token], col: list[Token], ai: list[int], bi: list[int],
                out: PairDiff) -> None:
    a = [base[k].key for k in ai]
    b = [col[k].key for k in bi]
    exact = len(a) * len(b) <= EXACT_DIFF_LIMIT
    for op, a0, a1, b0, b1 in SequenceMatcher(None, a, b, autojunk=not exact).get_opcodes():
        if op == "equal":
            continue
        out.touched.update(ai[a0:a1] if a1 > a0 else ai[min(a0, len(ai) - 1):][:1])
        for j in bi[b0:b1]:
            out.kinds[j] = "insert" if op == "insert" else "replace"
        if a1 <= a0:
            continue
        lost = [base[k] for k in ai[a0:a1]]
        if b0 < len(bi):
            out.lost.setdefault(bi[b0], []).extend(lost)
        elif bi:
            out.trailing.setdefault(bi[-1], []).extend(lost)
        else:  # this message says nothing at all: show the loss where it would be
            after = next((k for k in range(len(col)) if col[k].message > base[ai[0]].message),
                         None)
            if after is not None:
                out.lost.setdefault(after, []).extend(lost)
            else:
                out.trailing.setdefault(len(col) - 1, []).extend(lost)


def same(base: list[Token], col: list[Token]) -> bool:
    return [t.key for t in base if t.key] == [t.key for t in col if t.key]


def build_spans(col: list[Token], diff: PairDiff, n_messages: int, parts: Sequence[int],
                keep: list[bool] | None, mode: Mode) -> list[list[list[Span]]]:
    """Spans per message per part; with ``keep`` unchanged runs outside it become one skip."""
    out: list[list[list[Span]]] = [[[] for _ in range(parts[i])] for i in range(n_messages)]
    skipped: list[Token] = []

    def flush() -> None:
        if skipped:
            n = sum(1 for t in skipped if t.key)
            unit = "line" if mode == "lines" else "word"
            at = skipped[0]
            _add(out[at.message][at.part], "skip", f"… {n} {unit}{'s' if n != 1 else ''} …\n")
            skipped.clear()

    for j, tok in enumerate(col):
        where = out[tok.message][tok.part]
        lost = diff.lost.get(j)
        if lost:
            flush()
            _add(where, "delete", _lost_text(lost))
        if skipped and (skipped[0].message, skipped[0].part) != (tok.message, tok.part):
            flush()
        if keep is not None and not keep[j]:
            skipped.append(tok)
        else:
            flush()
            _add(where, diff.kinds[j], tok.text)
        after = diff.trailing.get(j)
        if after:
            flush()
            if where and not where[-1].text[-1:].isspace():
                _add(where, where[-1].kind, " ")
            _add(where, "delete", _lost_text(after))
    if col:
        flush()
    return out


def _lost_text(run: list[Token]) -> str:
    """The base's words, with a line break where they crossed from one part to the next."""
    text = ""
    for prev, tok in zip([None, *run], run, strict=False):
        if prev is not None and (prev.message, prev.part) != (tok.message, tok.part):
            text = text.rstrip() + "\n"
        text += tok.text
    return text if text[-1:].isspace() else text + " "


def _add(spans: list[Span], kind: SpanKind, text: str) -> None:
    if spans and spans[-1].kind == kind and kind != "skip":
        spans[-1] = Span(kind, spans[-1].text + text)
    else:
        spans.append(Span(kind, text))


def near(changed: Sequence[bool], context: int) -> list[bool]:
    """Which tokens to keep when only changes are shown: the changes and ``context`` around."""
    keep = [False] * len(changed)
    for i, c in enumerate(changed):
        if c:
            for k in range(max(0, i - context), min(len(changed), i + context + 1)):
                keep[k] = True
    return keep
