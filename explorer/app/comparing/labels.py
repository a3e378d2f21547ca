"""Names for branches that say what differs: the edited words, the model, "answer 2 of 3", the time.

Two regenerations both called "prompt #295" tell a person nothing; what tells
them apart is whatever differs between them, so a label is built from exactly
that. The graph uses the same first differing words at its branch points.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from explorer.tree.model import Message

LABEL_WORDS = 6


def first_differing_words(texts: Sequence[str], limit: int = LABEL_WORDS) -> list[str]:
    """For each text, its words from where it parts ways with the text closest to it.

    "…" stands for the start it shares with another text, left out; a text that
    is another's start, cut short, reads "(same start, shorter)".
    """
    split = [t.split() for t in texts]
    out = []
    for j, w in enumerate(split):
        shared = max((_common(w, o) for i, o in enumerate(split) if i != j and o != w),
                     default=0)
        rest = w[shared: shared + limit]
        if not rest:
            out.append("(same start, shorter)" if shared else "(empty)")
            continue
        out.append(("…" if shared else "") + " ".join(rest)
                   + ("…" if len(w) > shared + limit else ""))
    return out


def _common(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def short_time(stamps: Sequence[float | None]) -> list[str]:
    """Local times, with the date only when the stamps fall on different days."""
    known = [datetime.fromtimestamp(s) for s in stamps if s is not None]
    days = {t.date() for t in known}
    minutes = [t.strftime("%Y-%m-%d %H:%M") for t in known]
    seconds = ":%S" if len(set(minutes)) < len(minutes) or len(days) == 1 else ""
    fmt = ("%Y-%m-%d %H:%M" if len(days) > 1 else "%H:%M") + seconds
    return [datetime.fromtimestamp(s).strftime(fmt) if s is not None else "" for s in stamps]


def column_labels(starts: Sequence[Message], models: Sequence[tuple[str, ...]],
                  ranks: Sequence[tuple[int, int]], texts: Sequence[str]) -> list[str]:
    """One label per column from what differs: the start's words, its rank, model and time.

    ``ranks`` is each start's place among its siblings (all of them, chosen or not).
    """
    n = len(starts)
    pieces: list[list[str]] = [[] for _ in range(n)]
    prompts = all(m.is_prompt for m in starts)
    for i, (m, (k, of)) in enumerate(zip(starts, ranks, strict=True)):
        if not prompts and of > 1:
            pieces[i].append(f"{_kind(m)} {k} of {of}")
    if len(set(texts)) > 1:
        quoted = first_differing_words(texts, LABEL_WORDS if prompts else LABEL_WORDS - 2)
        for i, q in enumerate(quoted):
            if texts.count(texts[i]) == 1:  # words another column shares tell nothing apart
                pieces[i].append(f"prompt “{q}”" if prompts else f"“{q}”")
    names = [", ".join(m) for m in models]
    if len(set(names)) > 1:
        for i, name in enumerate(names):
            pieces[i].append(name or "no model recorded")
    stamps = [m.created_at for m in starts]
    if len(set(stamps)) > 1:
        for i, t in enumerate(short_time(stamps)):
            if t:
                pieces[i].append(t)
    return [" · ".join(p) if p else f"message {starts[i].id}" for i, p in enumerate(pieces)]


def _kind(m: Message) -> str:
    return "prompt" if m.is_prompt else "answer" if m.role == "assistant" else f"{m.role} message"
