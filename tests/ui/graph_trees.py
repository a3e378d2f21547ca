"""Large generated conversation trees written straight into a store, for the graph."""

from __future__ import annotations

import random
import sqlite3

from explorer.store import Store
from explorer.store.ids import next_ids


def generated_conversation(store: Store, n: int, *, seed: int = 1, branch: float = 0.05) -> int:
    """A conversation of ``n`` messages: long runs that sometimes branch from an earlier message.

    Written as bare rows in one transaction (no parts): the graph reads only the skeleton.
    The tip is the last message, so the active path is one of the longest runs.
    """
    cid = store.create_conversation(f"generated {n}")

    def write(conn: sqlite3.Connection) -> None:
        first = next_ids(conn, "messages", n).start
        rnd = random.Random(seed)
        depth = [0] * n
        rows = []
        for i in range(n):
            if i == 0:
                parent = None
            else:
                parent = i - 1 if rnd.random() >= branch else rnd.randrange(i)
                depth[i] = depth[parent] + 1
            role = "user" if depth[i] % 2 == 0 else "assistant"
            rows.append((first + i, cid, None if parent is None else first + parent, role,
                         float(i), f"{role} message {i}: some words to show"))
        conn.executemany(
            "INSERT INTO messages (id, conversation_id, parent_id, role, created_at, preview) "
            "VALUES (?, ?, ?, ?, ?, ?)", rows)
        conn.execute("UPDATE conversations SET tip_id = ? WHERE id = ?", (first + n - 1, cid))

    store._writer.call(write)
    return cid
