"""Each conversation's message count is kept by triggers, so listing reads no messages."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import chat_turn, new_store, tool_turn

from explorer.app.tending import tree_actions, undo
from explorer.store import Store


def _counted(store: Store) -> dict[int, int]:
    """What a count of the rows says, conversation by conversation."""
    conn = sqlite3.connect(store.db_path)
    try:
        return dict(conn.execute("SELECT c.id, (SELECT count(*) FROM messages m "
                                 "WHERE m.conversation_id = c.id) FROM conversations c"))
    finally:
        conn.close()


def _listed(store: Store) -> dict[int, int]:
    return {c.id: c.message_count for c in store.conversations()}


def test_counts_follow_turns_forks_deletes_restores_and_purges(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    try:
        conv = store.create_conversation("counted")
        for n in range(3):
            store.append_turn(conv, chat_turn(n))
        store.append_turn(conv, tool_turn(3))
        assert _listed(store) == _counted(store) == {conv: 10}
        path = [m.id for m in store.path(conv)]
        fork = store.fork(conv, path[3])
        assert _listed(store) == _counted(store) == {conv: 10, fork: 4}
        store.branch(conv, path[1])  # the newer turns leave the active path
        gone = tree_actions.delete(store, path[4])
        assert _listed(store)[conv] == _counted(store)[conv] < 10
        undo.undo(store, conv)
        assert _listed(store) == _counted(store) == {conv: 10, fork: 4}
        tree_actions.delete(store, path[4])
        undo.purge(store, conv)
        assert _listed(store) == _counted(store)
        assert gone.summary and store.conversation(conv).message_count == _counted(store)[conv]
    finally:
        store.close()


def test_listing_conversations_reads_no_message_rows(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    try:
        conv = store.create_conversation("quiet")
        store.append_turn(conv, chat_turn(0))
        statements: list[str] = []
        store.reader.set_trace_callback(statements.append)
        assert [c.message_count for c in store.conversations()] == [2]
        assert statements and not any("messages" in s for s in statements)
    finally:
        store.reader.set_trace_callback(None)
        store.close()
