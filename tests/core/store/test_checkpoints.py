"""C1–C4 and P4: labels on boundaries, restarts, rewinds with digests, trims that drop labels."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import chat_turn, new_store, tool_call, tool_turn, user

from explorer.store import Store, StoreError


def test_C1_checkpoint_on_a_boundary_is_set_and_mid_turn_is_refused(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        c = s.create_conversation("t")
        ids = s.append_turn(c, tool_turn(1))
        assert s.checkpoint(c, "done") == ids[-1]
        with pytest.raises(StoreError, match="inside a turn"):
            s.checkpoint(c, "mid", at=ids[1])
        with pytest.raises(StoreError, match="already exists"):
            s.checkpoint(c, "done", at=ids[0])
        assert s.checkpoints(c) == {"done": ids[-1]}


def test_C2_a_label_survives_a_restart(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        c = s.create_conversation("t")
        target = s.append_turn(c, chat_turn(1))[-1]
        s.checkpoint(c, "before")
        s.append_turn(c, chat_turn(2))
    with Store(tmp_path / "t.db") as s2:
        assert s2.checkpoints(c) == {"before": target}
        s2.rewind(c, "before")
        assert s2.conversation(c).tip_id == target


def test_C3_rewind_moves_the_tip_back_keeps_the_path_and_a_digest(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        c = s.create_conversation("t")
        base = s.append_turn(c, chat_turn(0))[-1]
        s.checkpoint(c, "start")
        explored = s.append_turn(c, tool_turn(1)) + s.append_turn(c, tool_turn(2, error=True))
        count = s.conversation(c).message_count
        digest = s.rewind(c, "start")
        assert s.conversation(c).tip_id == base
        assert s.conversation(c).message_count == count
        assert digest == {"messages": 8, "turns": 2, "tool_calls": {"Bash": 2}, "errors": 1,
                          "last_assistant_line": "answer 2"}
        [record] = s.rewinds(c)
        assert (record["from_tip_id"], record["to_message_id"]) == (explored[-1], base)
        assert record["digest"] == digest


def test_C4_trim_drops_labels_it_cut_and_never_clamps(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        c = s.create_conversation("t")
        s.append_turn(c, chat_turn(1))
        s.checkpoint(c, "old")
        s.append_turn(c, tool_turn(2))
        s.append_turn(c, chat_turn(3))
        s.checkpoint(c, "recent")
        plan = s.trim(c, keep_turns=2)
        assert plan.dropped_checkpoints == ["old"]
        assert set(s.checkpoints(c)) == {"recent"}
        with pytest.raises(StoreError, match="no checkpoint 'old'"):
            s.rewind(c, "old")


def test_P4_trim_cuts_at_a_turn_start_never_at_an_orphan_result(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        c = s.create_conversation("t")
        for n in range(5):
            s.append_turn(c, tool_turn(n))
        before = s.conversation(c).message_count
        plan = s.trim(c, keep_turns=2)
        start = s.message(plan.start_id)
        assert start.is_prompt and start.text == "prompt 3"
        assert s.conversation(c).context_start_id == plan.start_id
        assert s.conversation(c).message_count == before


def test_P3_trim_of_a_crashed_session_uses_its_last_clean_boundary(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        c = s.create_conversation("t")
        s.append_turn(c, tool_turn(1))
        late, call = s.append_turn(c, [user("late"), tool_call("Bash", "never")], incomplete=True)
        assert s.conversation(c).tip_id == call
        assert s.clean_boundary(c) == late
        plan = s.trim(c, keep_turns=2)
        assert s.message(plan.start_id).text == "prompt 1"


def test_C1_an_imported_label_inside_a_turn_is_dropped_with_a_note(tmp_path: Path) -> None:
    from explorer.formats.base import ImportedCheckpoint, ImportedConversation
    from explorer.tree.model import Message, Part

    msgs = [
        Message("u", None, "user", [Part("text", "go")]),
        Message("a", "u", "assistant", [Part("tool_use", "{}", tool_name="Bash", tool_use_id="t")]),
        Message("r", "a", "user", [Part("tool_result", "ok", tool_use_id="t")]),
    ]
    ic = ImportedConversation("t", "test", msgs, tip="r", source_id="x", checkpoints=[
        ImportedCheckpoint("mid", "a"), ImportedCheckpoint("end", "r")])
    with new_store(tmp_path) as s:
        outcome = s.import_conversation(ic)
        assert set(s.checkpoints(outcome.conversation_id)) == {"end"}
        assert any("'mid'" in n and "turn boundary" in n for n in outcome.notes)
