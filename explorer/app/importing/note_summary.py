"""What a sync of many sessions repaired or skipped, said once per kind instead of per session.

Each conversation's import names what it repaired and which records were not messages
(:meth:`ImportOutcome.note_lines`). For a handful that is the right detail; a first sync
of 25,000 sessions printed 66,000 such lines, which nobody reads. Past :data:`LIMIT` lines,
the same kind of note is told once: how many conversations it concerns, the records summed,
and one conversation to look at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LIMIT = 30
"""More note lines than this are told once per kind."""
_LINE = re.compile(r"^conversation (\d+): (.*)$", re.DOTALL)
_IGNORED = re.compile(r"^not messages: (.+) ×(\d+)$")
_NUMBER = re.compile(r"\d[\d,]*")


@dataclass
class _Kind:
    text: str  # the first note of the kind, as written
    example: int  # its conversation
    conversations: set[int] = field(default_factory=set)
    records: int = 0  # for "not messages": the records summed


def summarized(lines: list[str], limit: int = LIMIT) -> list[str]:
    """``lines`` as they are when there are few, else one line per kind of note."""
    if len(lines) <= limit:
        return list(lines)
    kinds: dict[str, _Kind] = {}
    loose: list[str] = []
    for line in lines:
        m = _LINE.match(line)
        if m is None:
            loose.append(line)
            continue
        conv, rest = int(m.group(1)), m.group(2)
        ignored = _IGNORED.match(rest)
        key = f"ignored {ignored.group(1)}" if ignored else _NUMBER.sub("#", rest)
        kind = kinds.setdefault(key, _Kind(rest, conv))
        kind.conversations.add(conv)
        if ignored:
            kind.records += int(ignored.group(2))
    return loose + [_told(key, kind) for key, kind in sorted(
        kinds.items(), key=lambda item: (-len(item[1].conversations), item[0]))]


def _told(key: str, kind: _Kind) -> str:
    many = len(kind.conversations)
    where = f"{many:,} conversation{'' if many == 1 else 's'}"
    if key.startswith("ignored "):
        return f"not messages: {key[len('ignored '):]} ×{kind.records:,} in {where}"
    if many == 1:
        return f"conversation {kind.example}: {kind.text}"
    return f"{where}, e.g. conversation {kind.example}: {kind.text}"
