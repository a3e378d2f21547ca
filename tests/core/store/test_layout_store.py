"""Stored layouts: one packed read on reopen, laid out again once the tree changed."""

from __future__ import annotations

from array import array
from pathlib import Path

from helpers import chat_turn, new_store, tool_turn

from explorer.store import Store
from explorer.store.layout_store import (
    ERROR,
    TOOL_CALL,
    TOOL_RESULT,
    conversation_stamp,
    load_layout,
    message_flags,
    pack_layout,
    save_layout,
    unpack_layout,
)
from explorer.tree.layout import layout_ids


def _lay_out_and_save(store: Store, conv_id: int) -> float:
    nodes = store.skeleton(conv_id)
    lay = layout_ids([n.id for n in nodes], [n.parent_id for n in nodes])
    ids = array("q", [n.id for n in nodes])
    return store._writer.call(save_layout, conv_id, ids, lay.xs, lay.depths)


def _conversation(store: Store, turns: int = 3) -> int:
    cid = store.create_conversation("c")
    for n in range(turns):
        store.append_turn(cid, chat_turn(n))
    return cid


def test_pack_and_unpack_round_trip() -> None:
    ids, xs, depths = array("q", [5, 9, 2**40]), array("d", [0.0, 1.5, 3.0]), array("i", [0, 1, 7])
    assert unpack_layout(pack_layout(ids, xs, depths)) == (ids, xs, depths)


def test_a_damaged_or_foreign_blob_is_not_used() -> None:
    good = pack_layout(array("q", [1]), array("d", [0.0]), array("i", [0]))
    assert unpack_layout(good[:-1]) is None
    assert unpack_layout(b"XXXX" + good[4:]) is None
    assert unpack_layout(b"") is None


def test_saved_layout_is_read_back_as_it_was_stored(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = _conversation(store)
        stamp = _lay_out_and_save(store, cid)
        got = load_layout(store.reader, cid)
        assert got is not None
        assert got.ids.tolist() == [n.id for n in store.skeleton(cid)]
        assert got.depths.tolist() == list(range(6))
        assert got.computed_at == stamp


def test_a_layout_survives_reopening_the_file(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = _conversation(store)
        stamp = _lay_out_and_save(store, cid)
    with Store(tmp_path / "t.db") as again:
        got = load_layout(again.reader, cid)
        assert got is not None and got.computed_at == stamp


def test_a_grown_tree_invalidates_its_layout(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = _conversation(store)
        _lay_out_and_save(store, cid)
        store.append_turn(cid, chat_turn(99))
        assert load_layout(store.reader, cid) is None


def test_a_new_branch_invalidates_the_layout(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = _conversation(store)
        _lay_out_and_save(store, cid)
        first_prompt = store.skeleton(cid)[0].id
        store.edit_prompt(cid, first_prompt, "edited")
        assert load_layout(store.reader, cid) is None


def test_a_layout_of_fewer_messages_than_stored_is_stale(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = _conversation(store)
        nodes = store.skeleton(cid)[:-1]
        lay = layout_ids([n.id for n in nodes], [n.parent_id for n in nodes])
        store._writer.call(save_layout, cid, array("q", [n.id for n in nodes]), lay.xs,
                           lay.depths)
        assert load_layout(store.reader, cid) is None


def test_conversation_stamp_counts_messages_and_highest_id(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = _conversation(store, turns=2)
        ids = [n.id for n in store.skeleton(cid)]
        assert conversation_stamp(store.reader, cid) == (4, max(ids))
        empty = store.create_conversation("empty")
        assert conversation_stamp(store.reader, empty) == (0, 0)


def test_saving_twice_replaces_the_row(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = _conversation(store)
        _lay_out_and_save(store, cid)
        _lay_out_and_save(store, cid)
        count = store.reader.execute("SELECT count(*) FROM layouts").fetchone()[0]
        assert count == 1


def test_mismatched_arrays_are_refused(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = _conversation(store)
        try:
            store._writer.call(save_layout, cid, array("q", [1, 2]), array("d", [0.0]),
                               array("i", [0]))
        except ValueError as e:
            assert "differ in length" in str(e)
        else:
            raise AssertionError("mismatched arrays were stored")
        assert load_layout(store.reader, cid) is None


def test_message_flags_mark_tool_calls_results_and_errors(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = store.create_conversation("tools")
        store.append_turn(cid, tool_turn(1))
        store.append_turn(cid, tool_turn(2, error=True))
        nodes = store.skeleton(cid)
        flags = message_flags(store.reader, cid)
        got = [flags.get(n.id, 0) for n in nodes]
        assert got == [0, TOOL_CALL, TOOL_RESULT, 0, 0, TOOL_CALL, TOOL_RESULT | ERROR, 0]


def test_message_flags_read_only_the_asked_conversation(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        a = store.create_conversation("a")
        store.append_turn(a, tool_turn(1))
        b = _conversation(store, turns=1)
        assert message_flags(store.reader, b) == {}
        assert set(message_flags(store.reader, a).values()) == {TOOL_CALL, TOOL_RESULT}
