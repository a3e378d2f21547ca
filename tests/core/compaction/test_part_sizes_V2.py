"""Each part's sizes are kept in the store, so the context figure never reads a text (V2).

Every writer (imports, send, sync, fork, edit, undo of a delete, the demo) stores the sizes
of what it writes; a file made before the sizes existed gets them from a migration and a
background pass; the figure summed from the sizes equals the one estimated from the texts.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from coding_session import png_bytes
from costs_by_message import cost_into
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.app.context import compacting
from explorer.app.context.costs import CostTable
from explorer.app.context.figure import ContextFigure
from explorer.app.context.sizes import _BUCKET
from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.demo import load_demo
from explorer.app.importing.run import import_paths
from explorer.app.importing.sync import sync_sources
from explorer.app.targets import build_target
from explorer.app.tending import tree_actions, undo
from explorer.compaction import planner
from explorer.compaction.context import part_bucket
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.store.connection import open_connection
from explorer.store.migrations import migrate
from explorer.store.rows import blob_hash, dumps, insert_rows, message_row, part_rows
from explorer.tree.model import Message, Part, Usage
from explorer.tree.part_sizes import SIZE_COLUMNS, part_size
from explorer.tree.secrets import redact_messages
from tests.corpus import claude_code_sessions as cc
from tests.helpers import assistant, chat_turn, tool_turn, user

SECRET = "AKIAIOSFODNN7EXAMPLE"
TARGETS = (build_target(), build_target("openai", model="gpt-4o"), build_target(redact=False))


def _expected(store: Store, conv: int, target: Target) -> dict[str, Any]:
    """The figure estimated from the texts (``/context``'s own computation)."""
    return planner.usage(compacting.active_context(store, conv), target).to_dict()


def _rich_turns() -> list[list[Message]]:
    """Text, secrets, tool calls and results, an image, a snapshot page, non-ASCII text."""
    shot = Part("image", data=png_bytes(640, 480), media_type="image/png")
    page = Part("image", data=png_bytes(1568, 728), media_type="image/png",
                meta={"compaction": "snapshot"})
    answer = Message(id=None, parent_id=None, role="assistant",
                     parts=[Part("thinking", "hmm, lässt sich machen — 好的"),
                            Part("text", f"the key {SECRET} is noted")],
                     usage=Usage(input_tokens=900, output_tokens=40, cache_read_tokens=300))
    return [chat_turn(0), tool_turn(1), tool_turn(2, error=True),
            [Message(id=None, parent_id=None, role="user",
                     parts=[Part("text", f"password = 'hunter2hunter2' and {SECRET}"), shot]),
             answer],
            [user("pages"), Message(id=None, parent_id=None, role="assistant",
                                    parts=[Part("text", "a page"), page])]]


def _conversation(store: Store) -> int:
    conv = store.create_conversation("sized")
    for turn in _rich_turns():
        store.append_turn(conv, turn)
    return conv


def _assert_sized(store: Store) -> int:
    """Every part's stored sizes are those of its text and image; returns the parts seen."""
    rows = store.reader.execute(
        f"SELECT p.kind, p.text, b.data, {', '.join('p.' + c for c in SIZE_COLUMNS)} "
        "FROM parts p LEFT JOIN blobs b ON b.hash = p.blob_hash").fetchall()
    for kind, text, data, *stored in rows:
        assert tuple(stored) == part_size(Part(kind, text or "", data=data)), (kind, text)
    return len(rows)


def test_V2_every_writer_stores_the_sizes_of_the_parts_it_writes(
        tmp_path: Path, corpus_dir: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        load_demo(store)
        conv = _conversation(store)
        path = store.path(conv)
        store.fork(conv, path[5].id)  # a fork copies the path
        tree_actions.edit(store, conv, path[0].id, f"edited, with {SECRET}")
        tip = store.conversation(conv).tip_id
        doomed = store.append_turn(conv, chat_turn(9), parent_id=path[2].id)[0]
        store.branch(conv, tip)
        tree_actions.delete(store, doomed)
        undo.undo(store, conv)  # the deleted branch comes back, sizes and all
        report = import_paths(store, [corpus_dir / "exports"])  # images, tools, thinking
        assert report.errors == [] and report.added_messages == 55
        synced = sync_sources(store, Environment(corpus_dir / "codex" / "home", {}))
        assert synced.errors == [] and synced.added_messages > 0
        assert store.reader.execute(
            "SELECT count(*) FROM parts WHERE size_chars IS NULL").fetchone() == (0,)
        kinds = {k for (k,) in store.reader.execute("SELECT DISTINCT kind FROM parts")}
        assert kinds >= {"text", "thinking", "tool_use", "tool_result", "image"}
        assert _assert_sized(store) > 150


def test_V2_the_figure_equals_the_one_from_texts_after_import_edit_and_fork(
        tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        conv = _conversation(store)
        fork = store.fork(conv, store.path(conv)[-3].id)
        tree_actions.edit(store, conv, store.path(conv)[2].id, f"again {SECRET}")
        import_paths(store, [cc.original().parent])
        convs = [c.id for c in store.conversations()]
        assert len(convs) == 3  # one, its fork, the recording (its fork joined as a branch)
        assert sorted(store.conversation(c).message_count for c in convs)[-1] == 64
        for target in TARGETS:
            figure = ContextFigure(store)
            for cid in convs:
                assert figure.usage(cid, target).to_dict() == _expected(store, cid, target)
            assert figure.read_texts == 0 and figure.costed > 0
        assert fork in convs


def test_V2_the_figure_sums_the_stored_sizes_and_reads_no_text(tmp_path: Path) -> None:
    """Texts replaced behind the sizes' back (never done by the program) change nothing in
    the figure: it sums what was stored, and no statement it runs names a part's text."""
    with Store(tmp_path / "x.db") as store:
        conv = _conversation(store)
        before = {i: _expected(store, conv, t) for i, t in enumerate(TARGETS)}
        store.transact(lambda conn: conn.execute("UPDATE parts SET text = 'x'"))
        assert _expected(store, conv, TARGETS[0]) != before[0]  # the texts did change
        statements: list[str] = []
        store.reader.set_trace_callback(statements.append)
        for i, target in enumerate(TARGETS):
            figure = ContextFigure(store)
            assert figure.usage(conv, target).to_dict() == before[i]
            assert figure.read_texts == 0
        store.reader.set_trace_callback(None)
        reads = [s for s in statements if "parts p" in s]
        assert reads and not any("text" in s for s in reads)


def _old_file(db: Path, turns: list[list[Message]]) -> None:
    """A file as the previous version wrote it: schema 0009, parts without sizes."""
    conn = open_connection(db)
    migrate(conn, upto=9)
    conn.execute("INSERT INTO conversations(id, title, tip_id) VALUES (1, 'old', NULL)")
    mid, parent = 0, None
    for turn in turns:
        for m in turn:
            mid += 1
            conn.execute("INSERT INTO messages(id, conversation_id, parent_id, role, created_at, "
                         "model, usage, source_id, source_meta, preview) VALUES "
                         "(?,?,?,?,?,?,?,?,?,?)", message_row(m, mid, 1, parent)[:10])
            for i, p in enumerate(m.parts):
                h = blob_hash(p.data) if p.data is not None else None
                if p.data is not None:
                    conn.execute("INSERT OR IGNORE INTO blobs(hash, data, size, media_type) "
                                 "VALUES (?,?,?,?)", (h, p.data, len(p.data), p.media_type))
                conn.execute(
                    "INSERT INTO parts(message_id, idx, kind, text, tool_name, tool_use_id, "
                    "is_error, blob_hash, media_type, meta) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (mid, i, p.kind, p.text, p.tool_name, p.tool_use_id, int(p.is_error), h,
                     p.media_type, dumps(p.meta)))
            parent = mid
    conn.execute("UPDATE conversations SET tip_id = ? WHERE id = 1", (mid,))
    conn.execute("INSERT INTO parts_fts(rowid, text) SELECT id, text FROM parts")
    conn.close()


def test_V2_a_file_from_the_previous_schema_is_sized_and_gives_the_same_figure(
        tmp_path: Path) -> None:
    turns = _rich_turns() * 30  # a few hundred parts: more than one background pass
    _old_file(tmp_path / "new.db", [])
    with Store(tmp_path / "new.db") as fresh:  # the same conversation written today
        conv = fresh.create_conversation("old")
        for turn in turns:
            fresh.append_turn(conv, turn)
        expected = {i: _expected(fresh, conv, t) for i, t in enumerate(TARGETS)}
    _old_file(tmp_path / "old.db", turns)
    with Store(tmp_path / "old.db") as store:
        assert store.sizing.finished.wait(60) and store.sizing.error is None
        assert store.sizing.sized > 400  # in more than one transaction
        assert _assert_sized(store) == store.sizing.sized
        assert [h.message_id for h in store.search("hunter2hunter2")]  # index untouched
        for i, target in enumerate(TARGETS):
            figure = ContextFigure(store)
            assert figure.usage(1, target).to_dict() == expected[i]
            assert figure.read_texts == 0


def test_V2_parts_not_sized_yet_are_sized_when_the_figure_needs_them(tmp_path: Path) -> None:
    turns = _rich_turns()
    _old_file(tmp_path / "old.db", turns)
    with Store(tmp_path / "new.db") as fresh:
        conv = fresh.create_conversation("old")
        for turn in turns:
            fresh.append_turn(conv, turn)
        expected = {i: _expected(fresh, conv, t) for i, t in enumerate(TARGETS)}
    with Store(tmp_path / "old.db") as store:
        store.sizing.stop()  # as if opened while the background pass has not reached it
        store.sizing.finished.wait(60)
        store.transact(lambda c: c.execute(
            f"UPDATE parts SET {', '.join(c + ' = NULL' for c in SIZE_COLUMNS)}"))
        figure = ContextFigure(store)
        assert figure.usage(1, TARGETS[0]).to_dict() == expected[0]
        assert figure.read_texts == 0 and figure.costed == len(store.path(1))
        assert _assert_sized(store) == sum(len(m.parts) for turn in turns for m in turn)
        for i, target in enumerate(TARGETS):
            assert ContextFigure(store).usage(1, target).to_dict() == expected[i]


def test_V2_a_redactor_the_sizes_do_not_foresee_costs_from_the_texts(tmp_path: Path) -> None:
    def shout(messages: Any, notes: list[str]) -> list[Message]:
        return [Message(id=m.id, parent_id=m.parent_id, role=m.role, usage=m.usage,
                        source_meta=m.source_meta,
                        parts=[Part(p.kind, p.text.upper() + "!!", tool_name=p.tool_name,
                                    data=p.data, meta=p.meta) for p in m.parts])
                for m in messages]

    target = dataclasses.replace(TARGETS[0], redactor=shout)
    with Store(tmp_path / "x.db") as store:
        conv = _conversation(store)
        figure = ContextFigure(store)
        assert figure.usage(conv, target).to_dict() == _expected(store, conv, target)
        assert figure.read_texts == len(store.path(conv))


PARTS = st.builds(
    lambda kind, text, name, secret: Part(
        kind, text + (f" token={SECRET}" if secret else ""),
        tool_name=name if kind == "tool_use" else None),
    st.sampled_from(["text", "thinking", "tool_use", "tool_result"]),
    st.text(max_size=200), st.text(max_size=12), st.booleans())


_MEMORY: list[sqlite3.Connection] = []


def _memory() -> sqlite3.Connection:
    """One in-memory file with the current schema, emptied for each example."""
    if not _MEMORY:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        migrate(conn)
        conn.execute("INSERT INTO conversations(id, title) VALUES (1, 'x')")
        _MEMORY.append(conn)
    conn = _MEMORY[0]
    conn.execute("DELETE FROM parts")
    conn.execute("DELETE FROM messages")
    return conn


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(PARTS, min_size=1, max_size=4),
       role=st.sampled_from(["user", "assistant", "system", "tool"]))
def test_V2_parts_costed_from_their_stored_sizes_cost_what_their_texts_do(
        parts: list[Part], role: str) -> None:
    """SQLite's arithmetic on the stored counts rounds as ``Estimator.raw_part`` does."""
    message = Message(id=1, parent_id=None, role=role, parts=parts)
    conn = _memory()
    insert_rows(conn, [message_row(message, 1, 1, None)], part_rows(parts, 1, {}), {})
    for target in TARGETS:
        estimator = target.estimator()
        sent = redact_messages([message])[0][0] if target.redactor else message
        table = CostTable()
        assert cost_into(conn, [1], target, estimator, table) == (1, [])
        assert list(table.parts(0)) == [(_BUCKET[part_bucket(sent, p)], estimator.raw_part(p),
                                         False) for p in sent.parts]
        assert table.text[0] == estimator.raw_split([sent])[0]


def test_sizes_are_stored_as_plain_json_free_integers(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("one")
        store.append_turn(conv, [user("héllo, world"), assistant("hi")])
        row = store.reader.execute(
            f"SELECT {', '.join(SIZE_COLUMNS)} FROM parts ORDER BY id LIMIT 1").fetchone()
        assert row == (12, 10, 1, 1, None, None, None, None, None)
        assert json.dumps(row)


def test_V2_a_refresh_costs_only_messages_given_parts_since_the_last_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stopped refresh does not move the mark: a part added meanwhile to a message it had
    costed is still found by the next one."""
    from explorer.app.context import figure as context_figure

    target = TARGETS[0]
    with Store(tmp_path / "x.db") as store:
        conv = _conversation(store)
        figure = ContextFigure(store)
        monkeypatch.setattr(context_figure, "CHUNK", 3)
        figure.usage(conv, target)
        costed = figure.costed
        assert figure.usage(conv, target).to_dict() == _expected(store, conv, target)
        assert figure.costed == costed  # nothing new: nothing costed
        first = store.path(conv)[1].id
        calls: list[int] = []

        def stop_after_one() -> None:
            calls.append(1)
            if len(calls) == 2:
                raise RuntimeError("superseded")

        store.transact(lambda c: c.execute(
            "INSERT INTO parts(message_id, idx, kind, text) VALUES (?, 7, 'text', ?)",
            (first, "grown " * 50)))
        with pytest.raises(RuntimeError, match="superseded"):
            figure.usage(conv, target, stop_after_one)
        store.transact(lambda c: c.execute(
            "INSERT INTO parts(message_id, idx, kind, text) VALUES (?, 8, 'text', ?)",
            (first, "and again " * 50)))
        assert figure.usage(conv, target).to_dict() == _expected(store, conv, target)
        assert figure.costed == costed + 2  # the grown message, in each of the two refreshes
