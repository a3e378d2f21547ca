"""The last clean boundary of a conversation, derived from its tree and kept in the file.

It marks where a path that ends in the middle of a turn (a crashed session, a tip
moved onto a tool call) was last whole (P3). A send, branch, edit, rewind or sync that
moves the tip moves it too: the answer belongs to the tip.

The path to a message never changes (messages are only added; an undone deletion
puts them back under their own ids), so the answer for a tip is kept: in memory, keyed
by the conversation's random uid and the tip, and in ``clean_boundaries``, so the next
start reads one row instead of walking the whole path (0.6–0.9 s of CPU on a real
127,000-message session, asked by the transcript, the graph and the context figure).
The one change to a path's parts, a sync rewriting a message that grew, deletes the
conversation's kept rows (a trigger), and an answer derived before such a change is
not kept (:func:`remember` checks the parts it saw are still the file's).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from explorer.store.shared_answers import SharedAnswers
from explorer.store.turn_columns import read_snapshot

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


Remember = Callable[[int, int, int | None, int], None]
"""Keeps (conversation, tip, boundary, the highest part id its derivation saw)."""


def clean_boundary(conn: sqlite3.Connection, tip: int | None, uid: str = "",
                   conv_id: int = 0, remember: Remember | None = None) -> int | None:
    """The last message on the path to ``tip`` after which no tool call waits for its
    result (``tip`` itself when the path ends whole), or None. ``uid`` (the
    conversation's) lets the answer be remembered, and lets threads that ask at once
    (the transcript and the context figure opening the same conversation) share one walk;
    ``remember`` keeps a derived answer in the file."""
    if tip is None:
        return None
    if not uid:
        return _derive(conn, tip)
    return _known.get((uid, tip), lambda: _kept_or_derived(conn, tip, conv_id, remember))


def _kept_or_derived(conn: sqlite3.Connection, tip: int, conv_id: int,
                     remember: Remember | None) -> int | None:
    row = conn.execute("SELECT boundary FROM clean_boundaries WHERE tip_id = ?",
                       (tip,)).fetchone()
    if row is not None:
        return None if row[0] is None else int(row[0])
    with read_snapshot(conn):
        top = _parts_top(conn)
        found = _derive(conn, tip)
    if remember is not None:
        remember(conv_id, tip, found, top)
    return found


def remember(conn: sqlite3.Connection, conv_id: int, tip: int, found: int | None,
             top: int) -> None:
    """Keep ``found`` for ``tip`` (on the writer), unless parts changed since it was
    derived (then the next reader derives it again) or the tip is gone."""
    conn.execute(
        "INSERT OR REPLACE INTO clean_boundaries(tip_id, conversation_id, boundary) "
        "SELECT ?, ?, ? WHERE (SELECT coalesce(max(id), 0) FROM parts) = ? "
        "AND EXISTS (SELECT 1 FROM messages WHERE id = ?)", (tip, conv_id, found, top, tip))


def keep_now(conn: sqlite3.Connection, conv_id: int, tip: int, found: int | None) -> None:
    """Keep the boundary an import found on its tip's path (from the messages it holds),
    in the writer's own transaction: its first open then reads one row. Walked again in
    SQL here, the path cost a 100,000-message import 0.3 s of its last, single-core part."""
    remember(conn, conv_id, tip, found, _parts_top(conn))


def _parts_top(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(id), 0) FROM parts").fetchone()[0])


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
