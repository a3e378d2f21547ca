"""The messages whose metadata the views look into are marked in a column the writer sets
(store.meta_keys), so inserting a message no longer searches its metadata text."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from explorer.store import Store, marks, meta_keys
from explorer.store.connection import open_connection
from explorer.store.migrations import MIGRATIONS, migrate
from explorer.store.rows import dumps
from explorer.tree.imported import ImportedConversation
from explorer.tree.model import Message, Part

_STEP = [name for name, _ in MIGRATIONS].index("0023_meta_marked")


def _imported(s: Store) -> int:
    """The messages below imported (the writer's rows), as one conversation."""
    msgs = _messages()
    return s.import_conversation(ImportedConversation(
        "marked", "test", msgs, tip="e", source_id="marked")).conversation_id


def _messages() -> list[Message]:
    """A prompt, an answer, an edited prompt, a tool's own record and a message whose
    metadata names a key only inside a value (not marked by the writer, which reads keys)."""
    return [
        Message(id="a", parent_id=None, role="user", parts=[Part("text", "first")]),
        Message(id="b", parent_id="a", role="assistant", parts=[Part("text", "answer")]),
        Message(id="c", parent_id="a", role="user", parts=[Part("text", "again")],
                source_meta={"edited_from": 1}),
        Message(id="d", parent_id="b", role="user", parts=[Part("text", "ran")],
                source_meta={"meta_record": "command"}),
        Message(id="e", parent_id="d", role="user", parts=[Part("text", "quoted")],
                source_meta={"note": {"meta_record": "nested"}}),
    ]


def _marked(conn: sqlite3.Connection) -> dict[str, int | None]:
    return {r[0]: r[1] for r in conn.execute(
        f"SELECT source_id, {meta_keys.COLUMN} FROM messages ORDER BY id")}


def test_the_writer_marks_messages_by_their_metadatas_keys(tmp_path: Path) -> None:
    with Store(tmp_path / "m.db") as s:
        conv = _imported(s)
        s.writes_done()
        assert _marked(s.reader) == {"a": 0, "b": 0, "c": 1, "d": 1, "e": 0}
        index = s.reader.execute("SELECT sql FROM sqlite_master WHERE name = "
                                 "'messages_meta_keys'").fetchone()[0]
        assert "instr" not in index and meta_keys.MARKED in index  # nothing searched per row
        ids = {r[0]: r[1] for r in s.reader.execute("SELECT source_id, id FROM messages")}
        assert marks.edits(s.reader, conv) == {ids["c"]: 1}


def test_a_write_that_leaves_it_unset_is_marked_from_the_text(tmp_path: Path) -> None:
    """Another program's insert, or one of an older path, names no value: a trigger decides
    from the metadata's text, as the index did before."""
    with Store(tmp_path / "m.db") as s:
        conv = s.create_conversation("raw")
    conn = open_connection(tmp_path / "m.db")
    for mid, meta in ((1, {"merged_from": {"tip": 1}}), (2, {"model": "x"}), (3, None)):
        conn.execute("INSERT INTO messages(id, conversation_id, role, source_meta) "
                     "VALUES (?, ?, 'user', ?)", (mid, conv, dumps(meta)))
    assert [r[0] for r in conn.execute(
        f"SELECT {meta_keys.COLUMN} FROM messages ORDER BY id")] == [1, None, None]
    assert [r[0] for r in conn.execute(
        f"SELECT id FROM {meta_keys.MARKED_ROWS} WHERE conversation_id = ? AND "
        f"{meta_keys.MARKED}", (conv,))] == [1]
    conn.close()


def test_changed_metadata_is_marked_again(tmp_path: Path) -> None:
    with Store(tmp_path / "m.db") as s:
        _imported(s)
        s.writes_done()
    conn = open_connection(tmp_path / "m.db")
    conn.execute("UPDATE messages SET source_meta = ? WHERE source_id = 'a'",
                 (json.dumps({"spawned_by_tool_use_id": "t1"}),))
    conn.execute("UPDATE messages SET source_meta = '{}' WHERE source_id = 'c'")
    assert _marked(conn)["a"] == 1 and _marked(conn)["c"] == 0
    conn.close()


def test_a_file_from_before_keeps_its_marked_messages_and_revisions(tmp_path: Path) -> None:
    """The upgrade marks what the old index (partial on the text) held: the same answers,
    and what was kept for the conversations stays valid."""
    db = tmp_path / "old.db"
    conn = open_connection(db)
    migrate(conn, upto=_STEP)
    conn.execute("INSERT INTO conversations(id, title) VALUES (1, 'old')")
    for mid, (key, meta) in enumerate((("a", None), ("c", {"edited_from": 1}),
                                       ("d", {"meta_record": "command"})), start=1):
        conn.execute("INSERT INTO messages(id, conversation_id, role, source_id, source_meta) "
                     "VALUES (?, 1, 'user', ?, ?)", (mid, key, dumps(meta)))
    before = conn.execute("SELECT revision FROM conversations").fetchone()[0]
    conn.close()
    with Store(db) as s:
        assert _marked(s.reader) == {"a": None, "c": 1, "d": 1}
        assert s.reader.execute("SELECT revision FROM conversations").fetchone()[0] == before
        assert marks.edits(s.reader, 1) == {2: 1}
        plan = " ".join(r[3] for r in s.reader.execute(
            f"EXPLAIN QUERY PLAN SELECT id FROM {meta_keys.MARKED_ROWS} "
            f"WHERE conversation_id = 1 AND {meta_keys.MARKED}"))
        assert "messages_meta_keys" in plan


def test_a_long_imports_rows_are_marked_without_the_trigger(tmp_path: Path) -> None:
    """A long conversation is written in bulk, the marking trigger standing aside with the
    counting ones (the rows carry their marks); it is back once the write is done."""
    msgs = [Message(id=f"m{i}", parent_id=f"m{i - 1}" if i else None,
                    role="user" if i % 2 == 0 else "assistant", parts=[Part("text", f"t{i}")],
                    source_meta={"meta_record": "command"} if i % 100 == 7 else {})
            for i in range(1200)]
    with Store(tmp_path / "m.db") as s:
        conv = s.import_conversation(ImportedConversation(
            "long", "test", msgs, tip="m1199", source_id="long")).conversation_id
        s.writes_done()
        marked = [r[0] for r in s.reader.execute(
            f"SELECT source_id FROM {meta_keys.MARKED_ROWS} WHERE conversation_id = ? AND "
            f"{meta_keys.MARKED} ORDER BY id", (conv,))]
        unset = s.reader.execute(
            f"SELECT count(*) FROM messages WHERE {meta_keys.COLUMN} IS NULL").fetchone()[0]
        triggers = {r[0] for r in s.reader.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert marked == [f"m{i}" for i in range(1200) if i % 100 == 7]
    assert unset == 0
    assert "messages_meta_marked_ai" in triggers
