"""Where a sync leaves a conversation's tip: it follows the agent only from where the agent
left off (S1).

Each sync remembers, per conversation, the message the agent's file ended at (its tip)
in the file's ``sync_files`` record. When the conversation's tip is still there (or
nothing was remembered yet and the new tip descends from it) the tip moves to the
file's new tip, also onto a new branch when the agent rewound; a person who moved the
tip elsewhere keeps it there, and the new messages wait in the tree until they switch
back. Appends and whole re-reads follow the same rule.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Hashable, Sequence

from explorer.store.rows import load_messages
from explorer.tree.model import Message
from explorer.tree.turns import last_clean_boundary

AGENT_TIPS = "agent_tips"
"""The key, in a sync record's cursor, of the file's tip per conversation."""


def agent_tips(conn: sqlite3.Connection, path: str) -> dict[int, int]:
    """The tips the last sync of ``path`` left, by conversation."""
    row = conn.execute("SELECT cursor FROM sync_files WHERE path = ?", (path,)).fetchone()
    value = json.loads(row[0]) if row is not None and row[0] else None
    tips = value.get(AGENT_TIPS) if isinstance(value, dict) else None
    if not isinstance(tips, dict):
        return {}
    return {int(k): v for k, v in tips.items() if str(k).isdigit() and isinstance(v, int)}


def follow_tip(conn: sqlite3.Connection, conv_id: int, tip: int, agent_left: int | None,
               fresh: Sequence[Message] = (), ids: dict[Hashable, int] | None = None) -> bool:
    """Move the tip to the file's ``tip`` when the person is where the agent left off.

    ``fresh`` (with their database ``ids``) are the messages this sync stored: when they
    continue the old tip and it was clean, only they are judged for the clean boundary.
    Answers whether the tip moved.
    """
    touched(conn, conv_id, fresh)
    old_tip, old_clean = conn.execute(
        "SELECT tip_id, clean_tip_id FROM conversations WHERE id = ?", (conv_id,)).fetchone()
    moves = old_tip is None or old_tip == agent_left or (
        agent_left is None and old_tip in _path_ids(conn, tip))
    if not moves or old_tip == tip:
        return False
    segment = _new_stretch(fresh, ids or {}, tip)
    start = segment[0].parent_id if segment else None
    below = (ids or {}).get(start) if start is not None else None
    if segment and below is None and start is not None:
        below = _stored_id(conn, conv_id, start)
    if segment and below == old_tip and old_tip == old_clean:
        found = last_clean_boundary(segment)
        clean = (ids or {})[segment[found].id] if found is not None else old_clean
    else:
        chain = _path_ids(conn, tip)
        clean = _clean_on(conn, chain)
        _source_start_on(conn, conv_id, chain)
    conn.execute("UPDATE conversations SET tip_id = ?, clean_tip_id = ? WHERE id = ?",
                 (tip, clean, conv_id))
    return True


def touched(conn: sqlite3.Connection, conv_id: int, fresh: Sequence[Message]) -> None:
    """The conversation is as recent as the newest message this sync added (now, for
    messages without a time); a read that added nothing leaves it where it was, so a
    session read again does not jump to the top of the list."""
    if not fresh:
        return
    newest = max((m.created_at for m in fresh if m.created_at is not None),
                 default=time.time())
    conn.execute("UPDATE conversations SET updated_at = max(coalesce(updated_at, 0), ?) "
                 "WHERE id = ?", (newest, conv_id))


def _stored_id(conn: sqlite3.Connection, conv_id: int, key: Hashable) -> int | None:
    row = conn.execute("SELECT id FROM messages WHERE conversation_id = ? AND source_id = ?",
                       (conv_id, str(key))).fetchone()
    return int(row[0]) if row is not None else None


def _new_stretch(fresh: Sequence[Message], ids: dict[Hashable, int], tip: int) -> list[Message]:
    by_db = {ids[m.id]: m for m in fresh if m.id in ids}
    parent_db = {ids[m.id]: ids.get(m.parent_id) if m.parent_id is not None else None
                 for m in fresh if m.id in ids}
    out: list[Message] = []
    node: int | None = tip
    while node is not None and node in by_db:
        out.append(by_db[node])
        node = parent_db[node]
    out.reverse()
    return out


def _path_ids(conn: sqlite3.Connection, tip: int) -> list[int]:
    chain = [int(r[0]) for r in conn.execute(
        "WITH RECURSIVE up(id, parent_id) AS (SELECT id, parent_id FROM messages WHERE id = ? "
        "UNION ALL SELECT m.id, m.parent_id FROM messages m JOIN up ON m.id = up.parent_id) "
        "SELECT id FROM up", (tip,))]
    chain.reverse()
    return chain


def _clean_on(conn: sqlite3.Connection, chain: list[int]) -> int | None:
    loaded = load_messages(conn, chain)
    found = last_clean_boundary([loaded[i] for i in chain])
    return chain[found] if found is not None else None


def _source_start_on(conn: sqlite3.Connection, conv_id: int, chain: list[int]) -> None:
    """Start the context at the last compaction marker on the new path (``chain``), as an
    import of the file starts it (Claude Code's compact boundaries belong to their branch):
    the tip moved off the path it was on. A start a person chose is left alone."""
    marks = {int(r[0]) for r in conn.execute(
        "SELECT message_id FROM compactions WHERE conversation_id = ? "
        "AND kind = 'compact_boundary'", (conv_id,))}
    (current,) = conn.execute("SELECT context_start_id FROM conversations WHERE id = ?",
                              (conv_id,)).fetchone()
    if current is not None and current not in marks:
        return
    on_path = [i for i in chain if i in marks]
    conn.execute("UPDATE conversations SET context_start_id = ? WHERE id = ?",
                 (on_path[-1] if on_path else None, conv_id))
