"""Reading a growing pi session from where the last sync stopped.

pi appends one entry a line; an entry names its parent by id, and a message's
parent is the nearest *message* above it, through model changes, labels and the
other records between. The cursor keeps the session's id and version, the last
entry (entries without a parent continue it), how many entries came before (v1
compactions count them), and, for the newest :data:`KEPT_LINKS` non-message
entries, the message each stands below. The appended lines are read with those
entries as stand-ins; a parent that is none of them is a stored message's id (a
missing one makes the store ask for a whole read). A compaction whose kept
entries lie before the appended lines cannot be placed from them: the file is
then read whole (:class:`~explorer.formats.tailing.TailUnplaceable`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from explorer.formats.base import ImportedConversation
from explorer.formats.jsonl import skipped_notes
from explorer.formats.pi.entries import SEED
from explorer.formats.pi.header import is_slot, slot_title
from explorer.formats.pi.reader import FORMAT, _Entry, _SessionBuilder
from explorer.formats.tailing import Cursor, LineTail, Tail, TailUnplaceable

KEPT_LINKS = 400
"""Non-message entries kept in the cursor (the newest ones)."""


def can_tail(path: Path) -> bool:
    """Every pi session is JSON Lines, so a sync can read on from an offset."""
    return path.is_file()


def read_tail(path: Path, cursor: Cursor | None, *, whole: bool = False) -> Tail:
    """The session's messages after ``cursor`` (the whole session for None)."""
    if cursor is None:
        return _first(path, whole)
    state = cursor.state
    sid, version, index = state.get("sid"), state.get("version"), state.get("index")
    if not isinstance(sid, str) or not isinstance(version, int) or not isinstance(index, int):
        raise TailUnplaceable("the cursor does not name the session")
    builder = _SessionBuilder(version, [])
    builder.stored = True
    previous = state.get("previous")
    builder.previous = previous if isinstance(previous, str) else None
    links = state.get("links")
    for entry_id, message in (links.items() if isinstance(links, dict) else ()):
        builder.entries[entry_id] = _Entry(entry_id, message, SEED, 0, {})
    lines = LineTail(path, Cursor(cursor.offset, cursor.line), whole=whole)
    for line in lines:
        index += 1
        builder.add(index, line.number, line.value)
    conv = builder.tail(sid, path)
    conv.notes[:0] = skipped_notes(lines.skipped)
    lines.end.state = _state(builder, sid, version, index, state)
    return Tail(conv, lines.end)


def _first(path: Path, whole: bool) -> Tail:
    lines = LineTail(path, Cursor(), whole=whole)
    items = iter(lines)
    first, title = next(items, None), None
    if first is not None and is_slot(first.value):  # oh-my-pi's title slot, then the header
        title = slot_title(first.value)
        first = next(items, None)
    if first is None or first.value.get("type") != "session":
        # No complete line yet is a session being started, not an error.
        notes = [] if first is None else [f"{path.name}: not a pi session (no session header)"]
        conv = ImportedConversation("", FORMAT, [], source_path=str(path), notes=notes)
        return Tail(conv, lines.end)
    header = first.value
    written = header.get("version")
    version = written if isinstance(written, int) else 1
    builder = _SessionBuilder(version, [])
    index = 0
    for line in items:
        index += 1
        builder.add(index, line.number, line.value)
    conv = builder.build(header, path, title)
    conv.notes[:0] = skipped_notes(lines.skipped)
    if conv.source_id:
        lines.end.state = _state(builder, conv.source_id, version, index, {})
    return Tail(conv, lines.end)


def _state(builder: _SessionBuilder, sid: str, version: int, index: int,
           before: dict[str, Any]) -> dict[str, Any]:
    links: dict[str, str | None] = dict(before.get("links") or {})
    for entry in builder.order:
        if entry.message is None:
            links.pop(entry.id, None)
            links[entry.id] = builder.message_parent(entry)
    while len(links) > KEPT_LINKS:
        links.pop(next(iter(links)))
    previous = builder.order[-1].id if builder.order else before.get("previous")
    return {"sid": sid, "version": version, "index": index, "previous": previous,
            "links": links}
