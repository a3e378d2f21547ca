"""The paths to the last few tips are kept and shared by threads asking at once (V2): a
window opening a long conversation walks its path once, not once per view."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from helpers import chat_turn, tool_call

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


def test_V2_an_imports_tip_path_and_clean_path_are_kept_not_walked_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long new conversation's import sets its tip from its path: the store keeps that
    path (and the path to the clean boundary on it), so the views prepared next do not
    walk 100,000 messages again; what is kept is what the walk finds."""
    from explorer.store import import_writes
    from explorer.tree.imported import ImportedConversation
    from explorer.tree.model import text_message

    monkeypatch.setattr(import_writes, "HANDED_PATH_MIN", 5)
    msgs = [text_message(f"k{i}", f"k{i - 1}" if i else None,
                         "user" if i % 2 == 0 else "assistant", f"m{i}") for i in range(9)]
    msgs.append(text_message("side", "k3", "user", "a branch"))
    call = tool_call("Bash", "c1")  # the tip waits for its result: mid-turn, not clean
    call.id, call.parent_id = "k9", "k8"
    with Store(tmp_path / "x.db") as store:
        (out,) = store.import_conversations([ImportedConversation(
            "long", "test", [*msgs[:8], msgs[9], msgs[8], call], tip="k9", source_id="long")])
        assert isinstance(out, import_writes.ImportOutcome) and out.tip_path is None
        conv = store.conversation(out.conversation_id)
        assert conv.tip_id is not None and conv.clean_tip_id not in (None, conv.tip_id)
        walked = {t: reads.path_ids(store.reader, t) for t in (conv.tip_id, conv.clean_tip_id)}

        def no_walk(conn: object, tip: int) -> list[int]:
            raise AssertionError(f"walked to {tip}")

        monkeypatch.setattr(reads, "path_ids", no_walk)
        for tip, ids in walked.items():
            assert store.path_ids(tip) == ids
        (small,) = store.import_conversations([ImportedConversation(
            "short", "test", msgs[:3], tip="k2", source_id="short")])
        assert isinstance(small, import_writes.ImportOutcome)
        short_tip = store.conversation(small.conversation_id).tip_id
        assert short_tip is not None
        with pytest.raises(AssertionError, match="walked"):
            store.path_ids(short_tip)  # too short to be handed: walked as before
