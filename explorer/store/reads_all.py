"""Reading a whole conversation at once, for export and fork-style copies."""

from __future__ import annotations

import sqlite3

from explorer.store.rows import load_messages
from explorer.tree.model import Message
from explorer.tree.paths import tree_order


def conversation_messages(conn: sqlite3.Connection, conv_id: int) -> list[Message]:
    """Every message of the conversation, parents before children."""
    ids = [r[0] for r in conn.execute(
        "SELECT id FROM messages WHERE conversation_id = ? ORDER BY id", (conv_id,)
    )]
    loaded = load_messages(conn, ids)
    return tree_order(loaded[i] for i in ids)
