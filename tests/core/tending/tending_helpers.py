"""Random trees in a real SQLite file, and an exact picture of a conversation's stored state."""

from __future__ import annotations

from typing import Any

from helpers import assistant, user

from explorer.store import Store

# Tables whose rows make up what a person could see of a conversation, or get back.
STATE_TABLES = {
    "messages": "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id",
    "parts": "SELECT p.* FROM parts p JOIN messages m ON m.id = p.message_id "
             "WHERE m.conversation_id = ? ORDER BY p.id",
    "checkpoints": "SELECT * FROM checkpoints WHERE conversation_id = ? ORDER BY id",
    "rewinds": "SELECT * FROM rewinds WHERE conversation_id = ? ORDER BY id",
    "compactions": "SELECT * FROM compactions WHERE conversation_id = ? ORDER BY id",
    "marks": "SELECT * FROM message_marks WHERE conversation_id = ? ORDER BY message_id",
    "tombstones": "SELECT id, root_id, parent_id, message_count FROM tombstones "
                  "WHERE conversation_id = ? ORDER BY id",
    "conversation": "SELECT id, title, tip_id, context_start_id, clean_tip_id FROM "
                    "conversations WHERE id = ?",
}


def state(store: Store, conv_id: int) -> dict[str, list[tuple[Any, ...]]]:
    """Every stored row of the conversation (ids included), and what search finds."""
    out = {name: [tuple(r) for r in store.reader.execute(sql, (conv_id,))]
           for name, sql in STATE_TABLES.items()}
    out["search"] = [(h.message_id, h.snippet) for h in store.search("msg", 500)
                     if h.conversation_id == conv_id]
    return out


def grow(store: Store, shape: list[int], tip_pick: int) -> int:
    """A conversation whose message i (1-based order) hangs under ``shape[i] % i``.

    Index 0 of the chain is a root; ``p % i == i - 1`` continues the previous message.
    Roles alternate by depth so every message is its own clean turn boundary.
    """
    conv = store.create_conversation("tending")
    ids = store.append_turn(conv, [user("msg 0 root")])
    depth = {ids[0]: 0}
    for i, pick in enumerate(shape, start=1):
        parent = ids[pick % i]
        d = depth[parent] + 1
        m = user(f"msg {i} prompt") if d % 2 == 0 else assistant(f"msg {i} answer")
        new = store.append_turn(conv, [m], parent_id=parent)[0]
        ids.append(new)
        depth[new] = d
    store.branch(conv, ids[tip_pick % len(ids)])
    return conv


def ids_of(store: Store, conv_id: int) -> list[int]:
    return [n.id for n in store.skeleton(conv_id)]
