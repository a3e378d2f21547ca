"""T1–T5 on a real SQLite file: paths, branch, edit, fork, opaque ids."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import assistant, chat_turn, new_store, tool_turn, user

from explorer.store import NotFound, Store, StoreError


def _rows(db: Path, table: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = new_store(tmp_path)
    yield s
    s.close()


def test_T1_every_message_records_its_parent_and_the_tip_names_the_branch(store: Store) -> None:
    c = store.create_conversation("t")
    ids = store.append_turn(c, tool_turn(1)) + store.append_turn(c, chat_turn(2))
    path = store.path(c)
    assert [m.id for m in path] == ids
    assert [m.parent_id for m in path] == [None, *ids[:-1]]
    assert store.conversation(c).tip_id == ids[-1]


def test_T2_branch_moves_the_tip_and_writes_no_message(store: Store) -> None:
    c = store.create_conversation("t")
    first = store.append_turn(c, chat_turn(1))
    store.append_turn(c, chat_turn(2))
    before = {t: _rows(store.db_path, t) for t in ("messages", "parts", "checkpoints", "blobs")}
    store.branch(c, first[-1])
    after = {t: _rows(store.db_path, t) for t in ("messages", "parts", "checkpoints", "blobs")}
    assert before == after
    assert store.conversation(c).tip_id == first[-1]


def test_T2_edit_adds_a_sibling_and_the_old_answer_stays(store: Store) -> None:
    c = store.create_conversation("t")
    prompt, answer = store.append_turn(c, chat_turn(1))
    edited = store.edit_prompt(c, prompt, "prompt 1, better")
    assert store.siblings(prompt) == [prompt, edited]
    assert store.conversation(c).tip_id == edited
    assert store.children(prompt) == [answer]
    assert store.message(answer).text == "answer 1"


def test_T2_edit_refuses_a_message_that_is_not_a_prompt(store: Store) -> None:
    c = store.create_conversation("t")
    _, answer = store.append_turn(c, chat_turn(1))
    with pytest.raises(StoreError, match="not a prompt"):
        store.edit_prompt(c, answer, "x")


def test_T3_going_back_is_a_pointer_move_and_hides_nothing(store: Store) -> None:
    c = store.create_conversation("t")
    first = store.append_turn(c, chat_turn(1))
    later = store.append_turn(c, chat_turn(2))
    count = store.conversation(c).message_count
    store.branch(c, first[-1])
    store.branch(c, later[-1])
    assert store.conversation(c).message_count == count
    assert [m.id for m in store.path(c)] == first + later


def test_T4_fork_copies_the_path_with_fresh_ids_and_shares_nothing(store: Store) -> None:
    c = store.create_conversation("orig")
    a = store.append_turn(c, tool_turn(1))
    store.checkpoint(c, "one")
    b = store.append_turn(c, chat_turn(2))
    store.append_turn(c, chat_turn(3))
    f = store.fork(c, b[-1])
    fpath = store.path(f)
    assert [m.text for m in fpath] == [m.text for m in store.path(c, b[-1])]
    assert not {m.id for m in fpath} & set(store.path_ids(b[-1]))
    assert [m.parent_id for m in fpath] == [None, *[m.id for m in fpath[:-1]]]
    conv = store.conversation(f)
    assert (conv.forked_from_conversation_id, conv.forked_from_message_id) == (c, b[-1])
    assert store.checkpoints(f) == {"one": fpath[len(a) - 1].id}
    store.append_turn(f, chat_turn(9))
    store.append_turn(c, chat_turn(8))
    assert "prompt 9" not in [m.text for m in store.path(c)]
    assert "prompt 8" not in [m.text for m in store.path(f)]


def test_T5_ids_are_unique_integers_across_conversations(store: Store) -> None:
    c1, c2 = store.create_conversation("a"), store.create_conversation("b")
    ids = store.append_turn(c1, chat_turn(1)) + store.append_turn(c2, chat_turn(1))
    assert len(set(ids)) == len(ids) and all(isinstance(i, int) for i in ids)


def test_operations_refuse_messages_of_another_conversation(store: Store) -> None:
    c1, c2 = store.create_conversation("a"), store.create_conversation("b")
    m1 = store.append_turn(c1, chat_turn(1))
    store.append_turn(c2, chat_turn(1))
    with pytest.raises(StoreError, match="not in conversation"):
        store.branch(c2, m1[0])
    with pytest.raises(StoreError, match="not in conversation"):
        store.fork(c2, m1[0])
    with pytest.raises(NotFound):
        store.branch(c1, 10_000)


def test_children_and_siblings(store: Store) -> None:
    c = store.create_conversation("t")
    p, a1 = store.append_turn(c, [user("q"), assistant("a1")])
    a2 = store.append_turn(c, [assistant("a2")], parent_id=p)[0]
    assert store.children(p) == [a1, a2]
    assert store.siblings(a2) == [a1, a2]


def test_search_finds_text_as_soon_as_a_turn_is_written(store: Store) -> None:
    c = store.create_conversation("t")
    ids = store.append_turn(c, [user("where is the flamingo config"), assistant("in etc")])
    hits = store.search("flamingo")
    assert [(h.conversation_id, h.message_id) for h in hits] == [(c, ids[0])]
    assert "[flamingo]" in hits[0].snippet
    assert store.search('"unbalanced') == []
