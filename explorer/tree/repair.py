"""Making a tree out of what real files contain: duplicates, dangling parents, cycles.

Nothing is dropped silently: every change is listed as a note so the import
report can say exactly what was repaired and why.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field, replace

from explorer.tree.model import Message


@dataclass
class Repair:
    """The repaired messages (in input order) and one note per change."""

    messages: list[Message]
    notes: list[str] = field(default_factory=list)
    skipped_duplicates: int = 0


def repair_tree(messages: Iterable[Message]) -> Repair:
    """Keep the first of duplicate ids, root dangling parents, cut cycles."""
    messages = list(messages)
    if _sound(messages):  # the usual case: answered with a set, not a map of every message
        return Repair(messages)
    out: dict[Hashable, Message] = {}
    notes: list[str] = []
    dups = 0
    for m in messages:
        if m.id in out:
            dups += 1
            notes.append(f"duplicate id {m.source_id or m.id!r}: kept the first, skipped this one")
            continue
        out[m.id] = m
    if _parents_come_first(out.values()):  # the usual case: nothing dangles, no cycle
        return Repair(list(out.values()), notes, dups)
    for key, m in list(out.items()):
        if m.parent_id is not None and m.parent_id not in out:
            notes.append(
                f"message {m.source_id or key!r}: parent {m.parent_id!r} is missing; made it a root"
            )
            out[key] = replace(m, parent_id=None)
    _cut_cycles(out, notes)
    return Repair(list(out.values()), notes, dups)


def _sound(messages: Iterable[Message]) -> bool:
    """No id twice and every parent before its children: nothing to repair."""
    seen: set[Hashable] = set()
    for m in messages:
        if m.id in seen or (m.parent_id is not None and m.parent_id not in seen):
            return False
        seen.add(m.id)
    return True


def _parents_come_first(messages: Iterable[Message]) -> bool:
    """True when every parent precedes its children: then none dangles and none loops."""
    seen: set[Hashable] = set()
    for m in messages:
        if m.parent_id is not None and m.parent_id not in seen:
            return False
        seen.add(m.id)
    return True


def _cut_cycles(out: dict[Hashable, Message], notes: list[str]) -> None:
    state: dict[Hashable, int] = {}  # 1 = on the current walk, 2 = known acyclic
    for start in list(out):
        walk: list[Hashable] = []
        node: Hashable | None = start
        while node is not None and state.get(node) is None:
            state[node] = 1
            walk.append(node)
            node = out[node].parent_id
        if node is not None and state.get(node) == 1:
            m = out[node]
            notes.append(
                f"message {m.source_id or node!r}: parent pointers form a cycle; cut it here"
            )
            out[node] = replace(m, parent_id=None)
        for n in walk:
            state[n] = 2
