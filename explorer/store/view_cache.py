"""What a view derived from a whole conversation, kept in the file for the next open.

The turn graph, the context figure and the transcript's path skeleton of a
100,000-message conversation each read and work through every message (seconds of CPU
on two cores); on a person's archive the same big conversation is opened again and
again unchanged. Each derived answer is kept in
``view_cache`` under the conversation's *revision*: a number that triggers add one to
on every write that could change what a view shows (its messages, their parts, its
checkpoints, rewinds, compactions, tombstones and marks, the conversation's own row:
tip, title, context start; a fork made from it, or deleted). An answer is good only
for the revision it was derived at, so it can never be shown stale, whatever process
or version wrote to the file since.

The revision is read *before* the derivation starts: a write that lands during it makes
the kept answer's revision an old one, never a newer one it does not match.
Nothing here is needed: a missing, old or unreadable entry is derived again.
"""

from __future__ import annotations

import sqlite3

_BUMP = "UPDATE conversations SET revision = revision + 1 WHERE id = {};"
_OF_MESSAGE = "(SELECT conversation_id FROM messages WHERE id = {}.message_id)"
WATCHED = ("checkpoints", "rewinds", "compactions", "tombstones", "message_marks")
"""Tables with a ``conversation_id`` whose rows a view draws."""


def triggers() -> list[str]:
    """The statements that keep every conversation's revision (migration 0014)."""
    out: list[str] = []
    for table in ("messages", *WATCHED):
        out += [_trigger(f"revision_{table}_ai", f"AFTER INSERT ON {table}",
                         _BUMP.format("new.conversation_id")),
                _trigger(f"revision_{table}_ad", f"AFTER DELETE ON {table}",
                         _BUMP.format("old.conversation_id")),
                _trigger(f"revision_{table}_au", f"AFTER UPDATE ON {table}",
                         _BUMP.format("old.conversation_id")
                         + _BUMP.format("new.conversation_id"))]
    out += [_trigger("revision_parts_ai", "AFTER INSERT ON parts",
                     _BUMP.format(_OF_MESSAGE.format("new"))),
            _trigger("revision_parts_ad", "AFTER DELETE ON parts",
                     _BUMP.format(_OF_MESSAGE.format("old"))),
            _trigger("revision_parts_au", "AFTER UPDATE ON parts",
                     _BUMP.format(_OF_MESSAGE.format("old"))
                     + _BUMP.format(_OF_MESSAGE.format("new"))),
            # The conversation's own row (tip, title, context start...), but not the
            # counts the message triggers keep or the revision itself.
            _trigger("revision_conversations_au", "AFTER UPDATE ON conversations "
                     "WHEN old.revision IS new.revision AND old.message_count IS "
                     "new.message_count", _BUMP.format("new.id")),
            _trigger("view_cache_conversation_gone", "AFTER DELETE ON conversations",
                     "DELETE FROM view_cache WHERE conversation_id = old.id;"),
            # A fork is drawn on the conversation it was forked from ("forked to #n").
            _trigger("revision_forks_ai", "AFTER INSERT ON conversations "
                     "WHEN new.forked_from_conversation_id IS NOT NULL",
                     _BUMP.format("new.forked_from_conversation_id")),
            _trigger("revision_forks_ad", "AFTER DELETE ON conversations "
                     "WHEN old.forked_from_conversation_id IS NOT NULL",
                     _BUMP.format("old.forked_from_conversation_id")),
            _trigger("revision_forks_au", "AFTER UPDATE OF forked_from_conversation_id, "
                     "forked_from_message_id ON conversations",
                     _BUMP.format("old.forked_from_conversation_id")
                     + _BUMP.format("new.forked_from_conversation_id"))]
    return out


def _trigger(name: str, when: str, body: str) -> str:
    return f"CREATE TRIGGER {name} {when} BEGIN {body} END"


TABLE = ("CREATE TABLE view_cache (conversation_id INTEGER NOT NULL, kind TEXT NOT NULL, "
         "revision INTEGER NOT NULL, key TEXT NOT NULL, data BLOB NOT NULL, "
         "PRIMARY KEY (conversation_id, kind))")


def revision(conn: sqlite3.Connection, conv_id: int, messages_from: int = 0) -> int | None:
    """The conversation's revision; None when it does not exist or has fewer than
    ``messages_from`` messages (too small for a kept view to be worth a look)."""
    row = conn.execute("SELECT revision, message_count FROM conversations WHERE id = ?",
                       (conv_id,)).fetchone()
    return None if row is None or row[1] < messages_from else int(row[0])


def load(conn: sqlite3.Connection, conv_id: int, kind: str, at: int, key: str
         ) -> bytes | None:
    """The answer kept for ``kind`` at revision ``at`` under ``key``, or None."""
    row = conn.execute(
        "SELECT data FROM view_cache WHERE conversation_id = ? AND kind = ? AND revision = ? "
        "AND key = ?", (conv_id, kind, at, key)).fetchone()
    return None if row is None else bytes(row[0])


def has(conn: sqlite3.Connection, conv_id: int, kind: str, at: int, key: str | None) -> bool:
    """Whether :func:`load` would find an answer (without reading it: a graph is megabytes);
    ``key`` None: under any key (no code digest to make)."""
    return conn.execute(
        "SELECT 1 FROM view_cache WHERE conversation_id = ? AND kind = ? AND revision = ? "
        "AND (key = ? OR ? IS NULL)", (conv_id, kind, at, key, key)).fetchone() is not None


def keep(conn: sqlite3.Connection, conv_id: int, kind: str, at: int, key: str,
         data: bytes) -> bool:
    """Keep an answer derived at revision ``at`` (one per conversation and kind); nothing
    when the conversation has moved on since, or is gone. Whether it was kept."""
    if revision(conn, conv_id) != at:
        return False
    conn.execute("INSERT OR REPLACE INTO view_cache VALUES (?, ?, ?, ?, ?)",
                 (conv_id, kind, at, key, data))
    return True
