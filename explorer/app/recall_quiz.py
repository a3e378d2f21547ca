"""A recall quiz: questions whose answers are known, drawn from what a compaction folds away.

Each question is a cloze on a line of the middle (the part a compaction turns into pages or a
summary): the line with one exact string (an id, a path, a hash, a number) blanked out. Asked
after each rung's context, the answers score what that context still lets the model recall,
on the person's own conversation rather than on a benchmark.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.compaction.facts import RARE_KINDS, Fact, find_facts, message_texts
from explorer.tree.model import Message

DEFAULT_QUESTIONS = 8
CONTEXT_CHARS = 60
INSTRUCTIONS = (
    "Recall quiz about the conversation above. Each line quotes a passage from it with one "
    "exact string replaced by ____. Answer from the conversation only, one line per "
    "question, as 'N: <the exact string>', or 'N: unknown' when you cannot tell."
)
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


@dataclass(frozen=True)
class Quiz:
    questions: tuple[Question, ...]

    @property
    def prompt(self) -> str:
        return "\n".join([INSTRUCTIONS, "", *(q.text for q in self.questions)])

    def score(self, reply: str) -> Score:
        given = {int(n): a for n, a in _ANSWER.findall(reply)}
        right = tuple(q.number for q in self.questions
                      if q.answer in given.get(q.number, ""))
        return Score(len(self.questions), right, given)


@dataclass(frozen=True)
class Score:
    asked: int
    right: tuple[int, ...]
    given: dict[int, str] = field(default_factory=dict)

    @property
    def fraction(self) -> float:
        return len(self.right) / self.asked if self.asked else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "right": len(self.right), "correct": list(self.right),
                "answers": {str(k): v for k, v in self.given.items()}}


def build_quiz(middle: Sequence[Message], size: int = DEFAULT_QUESTIONS) -> Quiz:
    """Up to ``size`` cloze questions on distinct exact strings of ``middle``, rare kinds
    (ids, hashes, URLs, versions) first, each quoting the passage it stands in."""
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
        questions.append(Question(len(questions) + 1, before, after, fact.value, fact.kind))
        if len(questions) == size:
            break
    return Quiz(tuple(questions))


def _squash(text: str, *, cut: bool, keep_end: bool) -> str:
    """One line of the passage; where it was ``cut`` mid-word, that partial word goes."""
    words = text.replace('"', "'").split()
    if not words or not cut:
        return " ".join(words)
    if keep_end:
        return " ".join(words[1:] if not text[0].isspace() else words)
    return " ".join(words[:-1] if not text[-1].isspace() else words)
