"""pi entries that are not messages (compactions, model and thinking-level changes,
labels, custom state, branch summaries, unknown types) kept on the messages beside
them, so a pi export writes them back where they were.

Each message carries the non-message entries between it and the message above it
(``pi_entries_before``); entries below the last message of a branch ride on that
message (``pi_entries_after``). They are kept raw, as pi wrote them, without their
``id``/``parentId`` (the export gives them new ones). ``session_info`` is not kept:
its name is the conversation's title, which the export writes itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from explorer.tree.model import Message

BEFORE = "pi_entries_before"
AFTER = "pi_entries_after"
SEED = "(read earlier)"
"""The type of a stand-in for an entry an earlier sync read (see ``pi.tail``)."""
NOT_KEPT = ("message", "custom_message", "session_info", SEED)
REFERENCES = ("firstKeptEntryId", "targetId", "fromId")  # fields naming another entry


class Entry(Protocol):
    id: str
    parent: str | None
    type: str
    raw: dict[str, Any]
    message: Message | None


def keep_entries(order: Sequence[Entry], entries: Mapping[str, Entry]) -> None:
    """Put every kept non-message entry on the message it stands beside."""
    placed: set[str] = set()
    for entry in order:
        if entry.message is None:
            continue
        run: list[Entry] = []
        node = entries.get(entry.parent) if entry.parent is not None else None
        while node is not None and node.message is None and node.id not in placed:
            placed.add(node.id)
            run.append(node)
            node = entries.get(node.parent) if node.parent is not None else None
        kept = [_raw(e) for e in reversed(run) if e.type not in NOT_KEPT]
        if kept:
            entry.message.source_meta[BEFORE] = kept
    for entry in order:
        if entry.message is not None or entry.id in placed or entry.type in NOT_KEPT:
            continue
        above = _message_above(entry, entries)
        if above is not None:
            above.source_meta.setdefault(AFTER, []).append(_raw(entry))


def _message_above(entry: Entry, entries: Mapping[str, Entry]) -> Message | None:
    seen: set[str] = set()
    node = entries.get(entry.parent) if entry.parent is not None else None
    while node is not None and node.id not in seen:
        if node.message is not None:
            return node.message
        seen.add(node.id)
        node = entries.get(node.parent) if node.parent is not None else None
    return None


def _raw(entry: Entry) -> dict[str, Any]:
    """The entry as pi wrote it, minus its place in the tree; its old id is kept aside."""
    out = {k: v for k, v in entry.raw.items() if k not in ("id", "parentId")}
    out["pi_old_id"] = entry.id
    return out
