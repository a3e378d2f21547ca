"""The last clean boundary of a conversation, derived from its tree whenever it is read.

It marks where a path that ends in the middle of a turn (a crashed session, a tip
moved onto a tool call) was last whole (P3). Derived, not stored, so it can never go
stale: a send, branch, edit, rewind or sync that moves the tip moves it too.

The path to a message never changes (messages are only added; an undone deletion
puts them back under their own ids), so the answer for a tip is remembered, keyed by
the conversation's random uid and the tip: reading a conversation again costs nothing.
"""

from __future__ import annotations

import sqlite3

from explorer.store.shared_answers import SharedAnswers

REMEMBERED = 4096
_known: SharedAnswers[tuple[str, int], int | None] = SharedAnswers(REMEMBERED)

_PATH_TOOL_PARTS = (
    "WITH RECURSIVE up(id, parent_id, depth) AS ("
    " SELECT id, parent_id, 0 FROM messages WHERE id = ?"
    " UNION ALL SELECT m.id, m.parent_id, up.depth + 1 FROM messages m"
    " JOIN up ON m.id = up.parent_id) "
    "SELECT up.id, p.kind, p.tool_use_id FROM up LEFT JOIN parts p ON p.message_id = up.id"
    " AND p.kind IN ('tool_use', 'tool_result') AND coalesce(p.tool_use_id, '') != ''"
    " ORDER BY up.depth DESC, p.idx"
)


def clean_boundary(conn: sqlite3.Connection, tip: int | None, uid: str = "") -> int | None:
    """The last message on the path to ``tip`` after which no tool call waits for its
    result (``tip`` itself when the path ends whole), or None. ``uid`` (the
    conversation's) lets the answer be remembered, and lets threads that ask at once
    (the transcript and the context figure opening the same conversation) share one walk."""
    if tip is None:
        return None
    if not uid:
        return _derive(conn, tip)
    return _known.get((uid, tip), lambda: _derive(conn, tip))


def _derive(conn: sqlite3.Connection, tip: int) -> int | None:
    open_calls: set[str] = set()
    last: int | None = None
    current: int | None = None
    for mid, kind, call in conn.execute(_PATH_TOOL_PARTS, (tip,)):
        if mid != current:
            if current is not None and not open_calls:
                last = current
            current = mid
        if kind == "tool_use":
            open_calls.add(call)
        elif kind == "tool_result":
            open_calls.discard(call)
    if current is not None and not open_calls:
        last = current
    return last
