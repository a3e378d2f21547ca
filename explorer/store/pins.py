"""Strings a person pinned to keep as text through compaction (L8), kept with the conversation.

A pin is the exact string, not a position: it survives restarts, branches and new messages, and
the loss report lists one whose string the context no longer holds as stale instead of dropping
it. Pinning twice is one pin; unpinning a string that is not pinned is refused with the reason.
"""

from __future__ import annotations

import sqlite3
import time

from explorer.store import reads
from explorer.store.errors import StoreError

TABLE = (
    "CREATE TABLE IF NOT EXISTS compaction_pins (id INTEGER PRIMARY KEY, "
    "conversation_id INTEGER NOT NULL REFERENCES conversations(id), text TEXT NOT NULL, "
    "created_at REAL NOT NULL, UNIQUE (conversation_id, text))"
)


def pin(conn: sqlite3.Connection, conv_id: int, text: str) -> bool:
    """Pin ``text``; False when it was pinned already."""
    if not text.strip():
        raise StoreError("a pin needs the exact string to keep")
    reads.get_conversation(conn, conv_id)  # refuses an unknown conversation
    cur = conn.execute(
        "INSERT OR IGNORE INTO compaction_pins(conversation_id, text, created_at) VALUES (?,?,?)",
        (conv_id, text, time.time()),
    )
    return cur.rowcount > 0


def unpin(conn: sqlite3.Connection, conv_id: int, text: str) -> None:
    cur = conn.execute("DELETE FROM compaction_pins WHERE conversation_id = ? AND text = ?",
                       (conv_id, text))
    if cur.rowcount == 0:
        raise StoreError(f"{text!r} is not pinned in conversation {conv_id}")


def pins(conn: sqlite3.Connection, conv_id: int) -> list[str]:
    """The conversation's pinned strings, oldest first."""
    return [r[0] for r in conn.execute(
        "SELECT text FROM compaction_pins WHERE conversation_id = ? ORDER BY id", (conv_id,))]
