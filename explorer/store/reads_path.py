"""Reads for showing a long path without loading it: the skeleton first, content by window.

A transcript of 80,000 messages must open at once (V2), so the first read
gives each message on the path only what a placeholder row needs (id, role,
a short preview, the kinds and sizes of its parts); full content is read
later, for a few dozen messages at a time. Part text longer than a limit is
read only up to that limit, with its real length: a 10 MB paste costs the
window 20 kB until the person unfolds it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from explorer.store.reads import path_ids
from explorer.store.rows import loads
from explorer.tree.model import Message, Part, Usage

FOLD_CHARS = 20_000
"""Part text beyond this many characters is left in the file until it is asked for."""

FOLDED_KEY = "folded_chars"
"""Meta key set on a part read in part: its full length in characters."""


@dataclass(frozen=True, slots=True)
class PathEntry:
    """One message on a path, without its content."""

    id: int
    parent_id: int | None
    role: str
    preview: str
    kinds: tuple[str, ...]
    chars: int  # text characters over all parts, each part counted up to FOLD_CHARS


def path_entries(conn: sqlite3.Connection, tip: int) -> list[PathEntry]:
    """The path from the root to ``tip`` as entries, in order (no part text is returned)."""
    ids = path_ids(conn, tip)
    key = json.dumps(ids)
    heads: dict[int, tuple[int | None, str, str]] = {
        r[0]: (r[1], r[2], r[3] or "") for r in conn.execute(
            "SELECT id, parent_id, role, preview FROM messages "
            "WHERE id IN (SELECT value FROM json_each(?))", (key,))
    }
    kinds: dict[int, list[str]] = {}
    sizes: dict[int, int] = {}
    for mid, kind, size in conn.execute(
        "SELECT message_id, kind, min(coalesce(length(text), 0), ?) FROM parts "
        "WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, idx",
        (FOLD_CHARS, key),
    ):
        kinds.setdefault(mid, []).append(kind)
        sizes[mid] = sizes.get(mid, 0) + size
    return [PathEntry(i, heads[i][0], heads[i][1], heads[i][2], tuple(kinds.get(i, ())),
                      sizes.get(i, 0)) for i in ids]


def window_messages(
    conn: sqlite3.Connection, ids: Sequence[int], fold: int = FOLD_CHARS
) -> dict[int, Message]:
    """Messages for ``ids`` with their parts; text over ``fold`` characters is cut there.

    A cut part carries its full length in ``meta[FOLDED_KEY]``; :func:`part_text` reads
    the rest when the person asks for it.
    """
    key = json.dumps(list(ids))
    out: dict[int, Message] = {}
    for r in conn.execute(
        "SELECT id, parent_id, role, created_at, model, usage, source_id, source_meta "
        "FROM messages WHERE id IN (SELECT value FROM json_each(?))", (key,),
    ):
        out[r[0]] = Message(
            id=r[0], parent_id=r[1], role=r[2], created_at=r[3], model=r[4],
            usage=Usage.from_dict(loads(r[5])), source_id=r[6], source_meta=loads(r[7]),
        )
    for r in conn.execute(
        "SELECT p.message_id, p.kind, substr(p.text, 1, ?), length(p.text), p.tool_name, "
        "p.tool_use_id, p.is_error, b.data, p.media_type, p.meta "
        "FROM parts p LEFT JOIN blobs b ON b.hash = p.blob_hash "
        "WHERE p.message_id IN (SELECT value FROM json_each(?)) ORDER BY p.message_id, p.idx",
        (fold, key),
    ):
        meta = loads(r[9])
        if r[3] is not None and r[3] > fold:
            meta = {**meta, FOLDED_KEY: int(r[3])}
        out[r[0]].parts.append(Part(
            kind=r[1], text=r[2] or "", tool_name=r[4], tool_use_id=r[5], is_error=bool(r[6]),
            data=r[7], media_type=r[8], meta=meta,
        ))
    return out


def part_text(conn: sqlite3.Connection, mid: int, index: int) -> str:
    """The whole text of part ``index`` of message ``mid`` (what a folded part holds back)."""
    r = conn.execute(
        "SELECT text FROM parts WHERE message_id = ? AND idx = ?", (mid, index)
    ).fetchone()
    return str(r[0] or "") if r is not None else ""


_SUBAGENT_ROOT = "json_type({}.source_meta, '$.spawned_by_tool_use_id')"


def sibling_lists(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, list[int]]:
    """For each id, the messages sharing its parent (itself included), in id order.

    A subagent transcript's root is neither a sibling of the conversation's roots
    nor has any (V1): ◀ ▶ never lead into a subagent.
    """
    key = json.dumps(list(ids))
    out: dict[int, list[int]] = {}
    for mid, sib in conn.execute(
        "SELECT m.id, s.id FROM messages m JOIN messages s ON "
        "(s.parent_id = m.parent_id OR s.id = m.id OR (m.parent_id IS NULL "
        " AND s.parent_id IS NULL AND s.conversation_id = m.conversation_id "
        f" AND {_SUBAGENT_ROOT.format('s')} IS NULL AND {_SUBAGENT_ROOT.format('m')} IS NULL)) "
        "WHERE m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id, s.id", (key,),
    ):
        out.setdefault(mid, []).append(sib)
    return out


def tool_names_in(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[str, str]:
    """Tool names by call id for the calls made in messages ``ids`` (a result's parent)."""
    return {r[0]: r[1] or "tool" for r in conn.execute(
        "SELECT tool_use_id, tool_name FROM parts WHERE kind = 'tool_use' AND "
        "tool_use_id IS NOT NULL AND message_id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(ids)),))}
