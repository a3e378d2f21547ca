"""Each conversation's message count is kept by triggers, so listing reads no messages."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import chat_turn, new_store, tool_turn

from explorer.app.tending import tree_actions, undo
from explorer.store import Store
from explorer.store.rows import BULK_TRIGGERS


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


def _triggers(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"))
    finally:
        conn.close()


def test_a_bulk_import_counts_once_and_leaves_every_trigger_as_it_was(tmp_path: Path) -> None:
    """A big import stands the per-row counting triggers aside inside its own transaction
    and counts once per conversation: the counts and revision come out right, the triggers
    are back exactly as they were, and a writer that is not this program still has them."""
    from explorer.formats.base import ImportedConversation
    from explorer.tree.model import Message, Part

    store = new_store(tmp_path)
    try:
        before = _triggers(store.db_path)
        messages = [Message(f"m{i}", f"m{i - 1}" if i else None,
                            "user" if i % 2 == 0 else "assistant", [Part("text", f"words {i}")],
                            source_id=f"m{i}") for i in range(1000)]
        ic = ImportedConversation(title="big", source_format="native", messages=messages,
                                  source_id="big-1", tip="m999")
        said: list[str] = []
        store.transact(lambda conn: conn.set_trace_callback(said.append))
        [outcome] = store.import_conversations([ic])
        store.transact(lambda conn: conn.set_trace_callback(None))
        dropped = [s for s in said if s.startswith("DROP TRIGGER")]
        assert len(dropped) == len(BULK_TRIGGERS), "aside once, not once a chunk"
        conv = outcome.conversation_id
        assert _listed(store) == _counted(store) == {conv: 1000}
        revision = store.reader.execute("SELECT revision FROM conversations WHERE id = ?",
                                        (conv,)).fetchone()[0]
        assert 1 <= revision <= 10  # bumped per written chunk, not per row (2,000 rows)
        assert _triggers(store.db_path) == before
        with sqlite3.connect(store.db_path) as other:  # another writer, row by row
            other.execute("INSERT INTO messages (conversation_id, parent_id, role) "
                          "VALUES (?, NULL, 'user')", (conv,))
        assert _listed(store) == _counted(store) == {conv: 1001}
        after = store.reader.execute("SELECT revision FROM conversations WHERE id = ?",
                                     (conv,)).fetchone()[0]
        assert after == revision + 1
    finally:
        store.close()


def test_a_fork_of_a_long_path_is_counted_once_and_keeps_the_triggers(tmp_path: Path) -> None:
    """One write of 256 messages or more (a fork's copy) is counted once, as an import is."""
    store = new_store(tmp_path)
    try:
        before = _triggers(store.db_path)
        conv = store.create_conversation("long")
        for n in range(150):
            store.append_turn(conv, chat_turn(n))
        said: list[str] = []
        store.transact(lambda conn: conn.set_trace_callback(said.append))
        fork = store.fork(conv, store.path(conv)[-1].id)
        store.transact(lambda conn: conn.set_trace_callback(None))
        assert len([s for s in said if s.startswith("DROP TRIGGER")]) == len(BULK_TRIGGERS)
        assert _listed(store) == _counted(store) == {conv: 300, fork: 300}
        assert _triggers(store.db_path) == before
    finally:
        store.close()
