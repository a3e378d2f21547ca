"""A recall quiz: questions whose answers are known, drawn from what a compaction folds away.

Each question is a cloze on a line of the middle (the part a compaction turns into pages or a
summary): the line with one exact string (an id, a path, a hash, a number) blanked out, or a
decision with the chosen option blanked out (``quiz_decisions``). Asked after each rung's
context, the answers score what that context still lets the model recall, per kind of
question, on the person's own conversation rather than on a benchmark. Exact strings must be
given exactly; a decision's few words are matched fairly (case, quotes, articles, key terms).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.app.calls.quiz_decisions import Decision, decision_matches, find_decisions
from explorer.compaction.facts import RARE_KINDS, Fact, find_facts, message_texts
from explorer.tree.model import Message

DEFAULT_QUESTIONS = 8
DECISION_SHARE = 3  # up to a third of the questions ask about decisions
DECISION = "decision"
CONTEXT_CHARS = 60
INSTRUCTIONS = (
    "Recall quiz about the conversation above. Each line quotes a passage from it with one "
    "exact string, or the option that was chosen, replaced by ____. Answer from the "
    "conversation only, one line per question, as 'N: <the exact string or the chosen "
    "option>', or 'N: unknown' when you cannot tell."
)
_NOT_SEEN = re.compile(r"^\s*(?:unknown|not visible|n/?a|\?+|-+|)\s*\.?\s*$", re.IGNORECASE)
_ANSWER = re.compile(r"^\s*(?:Q)?(\d+)\s*[:.)]\s*(.*?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Question:
    number: int
    before: str  # the passage up to the blank
    after: str  # the passage after it
    answer: str
    kind: str

    @property
    def text(self) -> str:
        return f'{self.number}: "…{self.before} ____ {self.after}…"'

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "question": self.text, "answer": self.answer,
                "kind": self.kind}

    def answered_by(self, given: str) -> bool:
        """Exact strings must appear exactly; a decision's words are matched fairly."""
        if self.kind == DECISION:
            return decision_matches(self.answer, given)
        return self.answer in given


@dataclass(frozen=True)
class Quiz:
    questions: tuple[Question, ...]

    @property
    def prompt(self) -> str:
        return "\n".join([INSTRUCTIONS, "", *(q.text for q in self.questions)])

    def score(self, reply: str) -> Score:
        given = {int(n): a for n, a in _ANSWER.findall(reply)}
        right = tuple(q.number for q in self.questions if q.answered_by(given.get(q.number, "")))
        by_kind: dict[str, list[int]] = {}
        for q in self.questions:
            tally = by_kind.setdefault(q.kind, [0, 0])
            tally[0] += q.number in right
            tally[1] += 1
        unsure = tuple(q.number for q in self.questions if q.number not in right
                       and _NOT_SEEN.match(given.get(q.number, "")))
        wrong = tuple(q.number for q in self.questions
                      if q.number not in right and q.number not in unsure)
        return Score(len(self.questions), right, given,
                     {k: (r, n) for k, (r, n) in by_kind.items()}, wrong, unsure)


@dataclass(frozen=True)
class Score:
    asked: int
    right: tuple[int, ...]
    given: dict[int, str] = field(default_factory=dict)
    by_kind: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind: (right, asked)
    wrong: tuple[int, ...] = ()
    """Answered with something else: counted against the context (a page that misleads is
    worse than one that says it cannot be read)."""
    not_visible: tuple[int, ...] = ()
    """Answered "unknown" (or not at all): the context did not show it, and said so."""

    @property
    def outcome_line(self) -> str:
        """``6 exact, 1 wrong, 1 not visible``."""
        return (f"{len(self.right)} exact, {len(self.wrong)} wrong, "
                f"{len(self.not_visible)} not visible")

    @property
    def fraction(self) -> float:
        return len(self.right) / self.asked if self.asked else 0.0

    @property
    def kinds_line(self) -> str:
        """``path 2/2, hash 1/2, decision 1/2``: the score per kind of question."""
        return kinds_line({k: {"right": r, "asked": n} for k, (r, n) in self.by_kind.items()})

    def to_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "right": len(self.right), "correct": list(self.right),
                "wrong": list(self.wrong), "not_visible": list(self.not_visible),
                "answers": {str(k): v for k, v in self.given.items()},
                "by_kind": {k: {"right": r, "asked": n} for k, (r, n) in self.by_kind.items()}}


def kinds_line(by_kind: dict[str, dict[str, int]]) -> str:
    """The per-kind scores in one order everywhere (exact kinds by name, decisions last)."""
    return ", ".join(f"{k} {v['right']}/{v['asked']}"
                     for k, v in sorted(by_kind.items(), key=lambda kv: (kv[0] == DECISION,
                                                                         kv[0])))


def build_quiz(middle: Sequence[Message], size: int = DEFAULT_QUESTIONS) -> Quiz:
    """Up to ``size`` cloze questions about ``middle``: its decisions (up to a third, at least
    one when there is any), then distinct exact strings, rare kinds (ids, hashes, URLs,
    versions) first, each quoting the passage it stands in; decisions fill what strings
    cannot."""
    decisions = [q for q in map(_decision_cloze, find_decisions(middle)) if q is not None]
    strings = _string_clozes(middle, size)
    share = min(len(decisions), max(1, size // DECISION_SHARE)) if size > 1 else 0
    chosen = decisions[:share] + strings[:size - share]
    chosen += decisions[share:share + size - len(chosen)]
    return Quiz(tuple(Question(n, q.before, q.after, q.answer, q.kind)
                      for n, q in enumerate(_in_order(chosen), 1)))


def _in_order(questions: list[Question]) -> list[Question]:
    """Strings first (as ranked), then decisions: the numbering a reader expects."""
    return ([q for q in questions if q.kind != DECISION]
            + [q for q in questions if q.kind == DECISION])


def _decision_cloze(d: Decision) -> Question | None:
    before = _squash(d.before, cut=d.cut, keep_end=True)
    after = _squash(d.after, cut=len(d.after) >= 40, keep_end=False)
    if len(before) < 8 or d.answer.lower() in (before + " " + after).lower():
        return None  # too little to locate it, or the blank would give itself away
    return Question(0, before, after, d.answer, DECISION)


def _string_clozes(middle: Sequence[Message], size: int) -> list[Question]:
    found: list[tuple[int, Fact, str, int]] = []
    seen: set[str] = set()
    for narrative, text in message_texts(middle):
        for fact in find_facts(text):
            value = fact.value
            if value in seen or any(c.isspace() for c in value) or len(value) < 3:
                continue
            seen.add(value)
            rank = (0 if fact.kind in RARE_KINDS else 1) + (0 if narrative else 2)
            found.append((rank, fact, text, text.find(value)))
    found.sort(key=lambda f: f[0])
    questions: list[Question] = []
    for _, fact, text, at in found:
        start, end = max(0, at - CONTEXT_CHARS), at + len(fact.value)
        before = _squash(text[start:at], cut=start > 0, keep_end=True)
        after = _squash(text[end:end + 30], cut=end + 30 < len(text), keep_end=False)
        if len(before) < 12 or fact.value in before or fact.value in after:
            continue  # too little to locate it, or the blank would give itself away
        questions.append(Question(0, before, after, fact.value, fact.kind))
        if len(questions) == size:
            break
    return questions


def _squash(text: str, *, cut: bool, keep_end: bool) -> str:
    """One line of the passage; where it was ``cut`` mid-word, that partial word goes."""
    words = text.replace('"', "'").split()
    if not words or not cut:
        return " ".join(words)
    if keep_end:
        return " ".join(words[1:] if not text[0].isspace() else words)
    return " ".join(words[:-1] if not text[-1].isspace() else words)
