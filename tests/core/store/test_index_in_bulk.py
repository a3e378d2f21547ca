"""A bulk write (a sync's batch, a huge session's chunks) puts its parts in the full-text
index once, at its end (V2): the index then holds every part exactly as the content table
does, after a part written earlier in the batch was replaced (and after a conversation
rolled back alone: ``test_import_batches``); what is written outside a bulk is indexed as
it is written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import new_store

from explorer.formats.base import ImportedConversation
from explorer.store import Store, StoreError
from explorer.store.rows import counted_in_bulk, insert_rows, part_rows
from explorer.store.sync_writes import refresh_grown
from explorer.tree.model import Message, Part, text_message


def _conv(n: int, words: str = "") -> ImportedConversation:
    msgs = [text_message("q", None, "user", f"question {n} {words}"),
            text_message("a", "q", "assistant", f"answer {n} {words}")]
    return ImportedConversation(f"c{n}", "test", msgs, tip="a", source_id=f"c{n}")


def _index_matches_the_parts(conn: sqlite3.Connection) -> None:
    """FTS5's own check, against the content table too (rank 1): raises if they differ."""
    conn.execute("INSERT INTO parts_fts(parts_fts, rank) VALUES ('integrity-check', 1)")


def _index_statements(store: Store) -> list[str]:
    seen: list[str] = []

    def trace(sql: str) -> None:
        if "INTO parts_fts(rowid" in sql:
            seen.append(sql)
    store.transact(lambda conn: conn.set_trace_callback(trace))
    return seen


def test_V2_a_batch_of_conversations_is_indexed_in_one_statement(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        seen = _index_statements(store)
        results = store.import_conversations([_conv(n, "zebra") for n in range(30)])
        assert all(not isinstance(r, StoreError) for r in results)
        assert len(seen) == 1  # not one per conversation
        store.transact(_index_matches_the_parts)
        assert len(store.search("zebra", limit=100)) == 60
        assert len(store.search('"question 17"')) == 1


def test_V2_a_part_written_in_the_batch_and_replaced_in_it_leaves_the_index(
        tmp_path: Path) -> None:
    """A response stored mid-write grows its parts later in the same batch (a fork synced
    with its original): the replaced part is indexed before it goes, then taken out."""
    with new_store(tmp_path) as store:
        def write(conn: sqlite3.Connection) -> None:
            with counted_in_bulk(conn):
                conv = conn.execute("INSERT INTO conversations(title) VALUES ('c') "
                                    "RETURNING id").fetchone()[0]
                mid = conn.execute(
                    "INSERT INTO messages(conversation_id, role) VALUES (?, 'assistant') "
                    "RETURNING id", (conv,)).fetchone()[0]
                blobs: dict[str, tuple[bytes, str | None]] = {}
                insert_rows(conn, [], part_rows([Part("text", "first mango")], mid, blobs),
                            blobs)
                grown = Message(mid, None, "assistant",
                                [Part("text", "first papaya"), Part("text", "then guava")])
                assert refresh_grown(conn, [(mid, grown)]) == 1
        store.transact(write)
        store.transact(_index_matches_the_parts)
        assert store.search("mango") == []
        assert len(store.search("papaya")) == 1 and len(store.search("guava")) == 1


def test_V2_a_write_outside_a_bulk_is_indexed_as_it_is_written(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        def write(conn: sqlite3.Connection) -> int:
            conv = conn.execute("INSERT INTO conversations(title) VALUES ('c') "
                                "RETURNING id").fetchone()[0]
            mid = conn.execute("INSERT INTO messages(conversation_id, role) VALUES (?, 'user') "
                               "RETURNING id", (conv,)).fetchone()[0]
            insert_rows(conn, [], part_rows([Part("text", "lonely lychee")], mid, {}), {})
            return int(conn.execute("SELECT count(*) FROM parts_fts WHERE parts_fts MATCH "
                                     "'lychee'").fetchone()[0])
        assert store.transact(write) == 1  # already there, inside the same transaction
        store.transact(_index_matches_the_parts)


def test_V2_a_sync_of_a_session_and_its_fork_leaves_the_index_whole(tmp_path: Path) -> None:
    """The recorded Claude Code home (a session, its subagents, and a fork that repeats it)
    synced in one batch: the index matches the parts."""
    from explorer.app.importing.agent_homes import Environment
    from explorer.app.importing.sync import sync_sources
    from tests.corpus import claude_code_sessions as cc

    with new_store(tmp_path) as store:
        report = sync_sources(store, Environment(cc.HOME, {}), {"claude-code"})
        assert not report.errors and report.added_messages > 20
        store.transact(_index_matches_the_parts)
        prompt_word = cc.FORK_PROMPT.split()[0]
        assert store.search(prompt_word)
