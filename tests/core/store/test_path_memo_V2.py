"""The paths to the last few tips are kept and shared by threads asking at once (V2): a
window opening a long conversation walks its path once, not once per view."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from helpers import chat_turn

from explorer.app.tending import tree_actions, undo
from explorer.store import NotFound, Store, reads
from explorer.store.path_memo import PathMemo


def _store(tmp_path: Path) -> tuple[Store, int]:
    store = Store(tmp_path / "x.db")
    conv = store.create_conversation("paths")
    for n in range(5):
        store.append_turn(conv, chat_turn(n))
    return store, conv


def test_V2_threads_asking_for_one_path_at_once_share_one_walk(tmp_path: Path) -> None:
    store, conv = _store(tmp_path)
    tip = store.conversation(conv).tip_id
    assert tip is not None
    memo, walks, gate = PathMemo(), [], threading.Event()

    def walk(conn: object, at: int) -> list[int]:
        walks.append(at)
        gate.wait(5)  # the others ask while this walk is under way
        return reads.path_ids(store.reader, at)

    answers: list[list[int]] = []
    threads = [threading.Thread(target=lambda: answers.append(
        memo.path_ids(store.reader, tip, walk))) for _ in range(3)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(10)
    assert walks == [tip]
    assert answers == [reads.path_ids(store.reader, tip)] * 3
    assert memo.path_ids(store.reader, tip, walk) == answers[0] and walks == [tip]
    store.close()


def test_V2_a_kept_path_follows_its_tip_being_deleted_and_restored(tmp_path: Path) -> None:
    store, conv = _store(tmp_path)
    tip = store.conversation(conv).tip_id
    assert tip is not None
    branch = store.append_turn(conv, chat_turn(9), parent_id=store.path_ids(tip)[3])
    path = store.path_ids(branch[-1])
    store.branch(conv, tip)
    tree_actions.delete(store, branch[0])
    with pytest.raises(NotFound):
        store.path_ids(branch[-1])
    undo.undo(store, conv)
    assert store.path_ids(branch[-1]) == path == reads.path_ids(store.reader, branch[-1])
    assert store.path_ids(tip) == reads.path_ids(store.reader, tip)
    store.close()
