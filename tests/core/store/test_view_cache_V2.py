"""Views kept between opens are never shown stale (V2): every write a view could show moves
the conversation's revision, and a kept view is read only at the revision it was derived at.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from explorer.store import Store, view_cache
from explorer.store.connection import open_connection
from explorer.store.migrations import migrate
from tests.helpers import chat_turn, tool_turn

Write = Callable[[sqlite3.Connection, int, int], object]


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[Store, int, int]]:
    with Store(tmp_path / "v.db") as store:
        a = store.create_conversation("a")
        store.append_turn(a, [m for n in range(3) for m in tool_turn(n)])
        b = store.create_conversation("b")
        store.append_turn(b, chat_turn(0))
        store.writes_done()
        yield store, a, b


def _tip(conn: sqlite3.Connection, conv: int) -> int:
    return int(conn.execute("SELECT tip_id FROM conversations WHERE id = ?", (conv,)).fetchone()[0])


def _part(conn: sqlite3.Connection, conv: int) -> int:
    return int(conn.execute("SELECT p.id FROM parts p JOIN messages m ON m.id = p.message_id "
                            "WHERE m.conversation_id = ? LIMIT 1", (conv,)).fetchone()[0])


def _drop(c: sqlite3.Connection, conv: int) -> None:
    """A conversation deleted whole, row by row."""
    c.execute("DELETE FROM parts WHERE message_id IN "
              "(SELECT id FROM messages WHERE conversation_id = ?)", (conv,))
    c.execute("UPDATE conversations SET tip_id = NULL WHERE id = ?", (conv,))
    c.execute("DELETE FROM messages WHERE conversation_id = ?", (conv,))
    c.execute("DELETE FROM conversations WHERE id = ?", (conv,))


WRITES: dict[str, Write] = {
    "message added": lambda c, conv, tip: c.execute(
        "INSERT INTO messages (conversation_id, parent_id, role) VALUES (?, ?, 'user')",
        (conv, tip)),
    "message changed": lambda c, conv, tip: c.execute(
        "UPDATE messages SET preview = 'new words' WHERE id = ?", (tip,)),
    "message deleted": lambda c, conv, tip: (
        c.execute("DELETE FROM parts WHERE message_id = ?", (tip,)),
        c.execute("UPDATE conversations SET tip_id = NULL WHERE id = ?", (conv,)),
        c.execute("DELETE FROM messages WHERE id = ?", (tip,))),
    "part added": lambda c, conv, tip: c.execute(
        "INSERT INTO parts (message_id, idx, kind, text) VALUES (?, 9, 'text', 'more')", (tip,)),
    "part changed": lambda c, conv, tip: c.execute(
        "UPDATE parts SET text = 'other' WHERE id = ?", (_part(c, conv),)),
    "part deleted": lambda c, conv, tip: c.execute(
        "DELETE FROM parts WHERE id = ?", (_part(c, conv),)),
    "tip moved": lambda c, conv, tip: c.execute(
        "UPDATE conversations SET tip_id = ? WHERE id = ?", (tip - 1, conv)),
    "renamed": lambda c, conv, tip: c.execute(
        "UPDATE conversations SET title = 'x' WHERE id = ?", (conv,)),
    "checkpoint": lambda c, conv, tip: c.execute(
        "INSERT INTO checkpoints (conversation_id, label, message_id) VALUES (?, 'cp', ?)",
        (conv, tip)),
    "rewind": lambda c, conv, tip: c.execute(
        "INSERT INTO rewinds (conversation_id, from_tip_id, to_message_id) VALUES (?, ?, ?)",
        (conv, tip, tip - 1)),
    "compaction": lambda c, conv, tip: c.execute(
        "INSERT INTO compactions (conversation_id, message_id, kind) VALUES (?, ?, 'shake')",
        (conv, tip)),
    "tombstone": lambda c, conv, tip: c.execute(
        "INSERT INTO tombstones (conversation_id, root_id, rows) VALUES (?, ?, '[]')",
        (conv, tip)),
    "mark": lambda c, conv, tip: c.execute(
        "INSERT INTO message_marks (message_id, conversation_id, preferred) VALUES (?, ?, 1)",
        (tip, conv)),
}


def test_V2_a_fork_moves_the_revision_of_the_conversation_it_was_forked_from(
        two: tuple[Store, int, int]) -> None:
    store, a, b = two
    before_a, before_b = store.revision(a), store.revision(b)
    assert before_a is not None and before_b is not None
    tip = store.conversation(a).tip_id
    assert tip is not None
    fork = store.fork(a, tip)
    moved = store.revision(a)
    assert moved is not None and moved > before_a and store.revision(b) == before_b

    store.transact(_drop, fork)  # the fork's mark goes from the tree it was made from
    after = store.revision(a)
    assert after is not None and after > moved


@pytest.mark.parametrize("what", sorted(WRITES))
def test_V2_every_write_a_view_shows_moves_that_conversations_revision_only(
        two: tuple[Store, int, int], what: str) -> None:
    store, a, b = two
    before_a, before_b = store.revision(a), store.revision(b)
    assert before_a is not None and before_b is not None
    store.transact(lambda c: WRITES[what](c, a, _tip(c, a)))
    after_a = store.revision(a)
    assert after_a is not None and after_a > before_a
    assert store.revision(b) == before_b  # the other conversation's kept views stay good


def test_V2_derived_rows_do_not_move_the_revision(two: tuple[Store, int, int]) -> None:
    store, a, _ = two
    before = store.revision(a)
    assert before is not None
    store.keep_view(a, "k", before, "key", b"data")
    store.transact(lambda c: c.execute(
        "INSERT OR REPLACE INTO clean_boundaries VALUES (?, ?, NULL)", (_tip(c, a), a)))
    store.transact(lambda c: c.execute(
        "INSERT OR REPLACE INTO layouts (conversation_id, version) VALUES (?, 1)", (a,)))
    store.writes_done()
    assert store.revision(a) == before
    assert store.kept_view(a, "k", before, "key") == b"data"


def test_V2_a_kept_view_is_read_at_its_revision_and_key_only(
        two: tuple[Store, int, int]) -> None:
    store, a, _ = two
    at = store.revision(a)
    assert at is not None
    store.keep_view(a, "graph", at, "code-1", b"one")
    store.writes_done()
    assert store.kept_view(a, "graph", at, "code-1") == b"one"
    assert store.kept_view(a, "graph", at, "code-2") is None  # other code derived it
    assert store.kept_view(a, "figure", at, "code-1") is None
    store.append_turn(a, chat_turn(7))
    now = store.revision(a)
    assert now is not None and now > at
    assert store.kept_view(a, "graph", now, "code-1") is None
    # A view derived before a write that landed first is not kept at all (and the one of
    # the old revision is never read again: reads ask at the current one).
    store.keep_view(a, "graph", at, "code-1", b"late")
    store.writes_done()
    assert store.kept_view(a, "graph", at, "code-1") == b"one"


def test_V2_a_deleted_conversation_takes_its_kept_views_along(
        two: tuple[Store, int, int]) -> None:
    store, a, b = two
    for conv in (a, b):
        at = store.revision(conv)
        assert at is not None
        store.keep_view(conv, "graph", at, "k", b"x")
    store.writes_done()

    store.transact(_drop, a)
    rows = store.reader.execute("SELECT conversation_id FROM view_cache").fetchall()
    assert rows == [(b,)]
    assert store.revision(a) is None


def test_V2_an_older_file_gains_revisions_at_zero_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = open_connection(path)
    migrate(conn, upto=13)
    conn.execute("INSERT INTO conversations (id, title, message_count) VALUES (1, 'old', 0)")
    conn.execute("INSERT INTO messages (id, conversation_id, role) VALUES (1, 1, 'user')")
    assert migrate(conn, upto=14) == ["0014_view_cache"]
    assert view_cache.revision(conn, 1) == 0
    conn.execute("INSERT INTO messages (id, conversation_id, parent_id, role) "
                 "VALUES (2, 1, 1, 'assistant')")
    assert view_cache.revision(conn, 1) == 1
    assert conn.execute("SELECT message_count FROM conversations").fetchone()[0] == 2
    conn.close()
