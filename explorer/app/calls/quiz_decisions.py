"""Decisions in the middle of a conversation, as recall questions with a known short answer.

What a compaction loses is not only exact strings: "we went with SQLite instead of Postgres",
"use httpx, not requests", a person's answer to an agent's multiple-choice question. Each is
found in the narrative (the person's and the model's text, and the answers to an agent's
question tool) and asked as a cloze with the chosen option blanked out. A plain "use X"
counts only with a rejected alternative beside it ("instead of", "rather than", ", not");
the verbs of deciding ("decided", "chose", "went with", "settled on") count alone.

The answer is a few words, so scoring is fair rather than exact (``decision_matches``):
the same words after normalising case, quotes and articles, or every key term of the
expected option named in a short reply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from explorer.tree.model import Message

MAX_ANSWER_WORDS = 4
MAX_ANSWER_CHARS = 40
CONTEXT_CHARS = 60  # of the passage before the decision, to find it by
EXTRA_WORDS = 6  # a reply may say a little more than the option, not list every option

_DECIDING = (r"decided\s+(?:to\s+(?:use|go\s+with|keep|switch\s+to|adopt|stick\s+with)|on)"
             r"|(?:chose|opted\s+for|settled\s+on|went\s+with|going\s+with"
             r"|(?:we|i|you|they|user)\s+(?:picked|selected)"
             r"|(?:we|i)(?:'ll|\s+will)\s+(?:go\s+with|stick\s+with)"
             r"|let's\s+(?:go|stick)\s+with"
             r"|switch(?:ed|ing)?\s+from\s+[^\s,.;]+(?:\s+[^\s,.;]+)?\s+to"
             r"|(?<![^\n*#])decision(?:\s+(?:is|was))?:(?:\s+(?:to\s+)?use)?)")
_CONTRASTED = (r"(?:we|i)(?:'ll|\s+will)\s+use|let's\s+use|use|using|switch(?:ed)?\s+to"
               r"|prefer|keep")
_DECISION = re.compile(rf"\b(?:(?P<decided>{_DECIDING})|(?P<plain>{_CONTRASTED}))\s+",
                       re.IGNORECASE)
_CONTRAST = re.compile(r"\s*,?\s*(?:instead\s+of|rather\s+than|over|and\s+not|not)\s+\S",
                       re.IGNORECASE)
_WORD = re.compile(r"[`'\"]?[A-Za-z0-9][\w.+#/@:-]*[`'\"]?")
_STOP = frozenset({
    "last", "next", "now", "today", "yesterday", "again", "too", "also", "first", "finally",
    "after", "before", "once", "everywhere", "throughout", "up", "out",
    "a", "an", "the", "to", "for", "because", "since", "as", "and", "or", "so", "but",
    "instead", "rather", "over", "not", "which", "that", "with", "in", "on", "at", "by",
    "of", "from", "it", "its", "this", "these", "those", "is", "was", "be", "we", "i",
    "you", "they", "here", "there", "then", "than", "when", "where", "if"
})
_VAGUE = frozenset({
    "it", "this", "that", "them", "one", "these", "those", "something", "anything", "both",
    "either"
})
# Claude Code's question tool: 'User has answered your questions: "Which db?"="SQLite".'
_ANSWERED = re.compile(r'"([^"\n]{6,200}\?)"\s*=\s*"([^"\n]{1,60})"')


@dataclass(frozen=True)
class Decision:
    before: str  # the passage up to the chosen option
    after: str  # what follows it (often the option turned down)
    answer: str  # the chosen option, a few words
    cut: bool = False  # ``before`` starts mid-text


def find_decisions(messages: Sequence[Message]) -> list[Decision]:
    """The decisions stated in ``messages``, in order, each once."""
    out: list[Decision] = []
    seen: set[str] = set()
    for text, answered in _texts(messages):
        found = _answered(text) if answered else _stated(text)
        for d in found:
            key = normalise(d.answer)
            if key not in seen:
                seen.add(key)
                out.append(d)
    return out


def _texts(messages: Iterable[Message]) -> Iterable[tuple[str, bool]]:
    """Statements from text and thinking; answers from tool results."""
    for m in messages:
        for p in m.parts:
            if p.kind in ("text", "thinking") and p.text:
                yield p.text, False
            elif p.kind == "tool_result" and p.text and "answered" in p.text:
                yield p.text, True


def _answered(text: str) -> list[Decision]:
    return [Decision(f"to the question '{q}' the person answered", "", a.strip())
            for q, a in _ANSWERED.findall(text) if _good(a.strip())]


def _stated(text: str) -> list[Decision]:
    out: list[Decision] = []
    for m in _DECISION.finditer(text):
        answer, end = _option(text, m.end())
        if not answer or not _good(answer):
            continue
        if m.group("plain") and not _CONTRAST.match(text, end):
            continue  # "use the tool" is not a decision; "use X instead of Y" is
        start = max(0, m.start() - CONTEXT_CHARS)
        out.append(Decision(text[start:m.end()], text[end:end + 40], answer, start > 0))
    return out


def _option(text: str, at: int) -> tuple[str, int]:
    """Up to ``MAX_ANSWER_WORDS`` words from ``at`` (a leading article skipped), stopping at
    a little word, a line break or punctuation; the option and where it ends."""
    words: list[str] = []
    pos = end = at
    first = True
    while len(words) < MAX_ANSWER_WORDS:
        if not first:
            spaced = pos
            while spaced < len(text) and text[spaced] in " \t":
                spaced += 1
            if spaced == pos:
                break  # punctuation or a line break ends the option
            pos = spaced
        m = _WORD.match(text, pos)
        if m is None:
            break
        word = m.group().strip("`'\"")
        bare = word.rstrip(".:")
        if bare.lower() in _STOP:
            if not words and first and bare.lower() in ("a", "an", "the"):
                pos, first = m.end(), False
                continue
            break
        words.append(bare)
        first = False
        pos = m.end()
        end = m.start() + len(m.group().rstrip(".:"))
        if bare != word:
            break  # the option ends with its sentence or clause
    return " ".join(words), end


def _good(answer: str) -> bool:
    words = answer.split()
    return (0 < len(answer) <= MAX_ANSWER_CHARS and any(c.isalpha() for c in answer)
            and words[0].lower() not in _VAGUE and answer.lower() != "unknown")


def normalise(text: str) -> str:
    """Lower case, no quotes or backticks, no articles, single spaces, no final stop."""
    words = re.sub(r"[`'\"*]", "", text.lower()).replace(",", " ").split()
    return " ".join(w for w in words if w not in ("a", "an", "the")).rstrip(".!;:")


def terms(text: str) -> list[str]:
    return [w.rstrip(".") for w in re.findall(r"[a-z0-9][a-z0-9.+#_/@-]*", normalise(text))
            if w not in _STOP]


def decision_matches(expected: str, given: str) -> bool:
    """A fair match for a few-word answer: the same words, or every key term of the
    expected option in a reply not much longer than it ("unknown" never matches)."""
    want, got = normalise(expected), normalise(given)
    if not got or got in ("unknown", "not sure", "i don't know"):
        return False
    if want == got:
        return True
    key, said = terms(want), terms(got)
    return bool(key) and set(key) <= set(said) and len(said) <= len(key) + EXTRA_WORDS
