"""T6–T8 over random trees in a real SQLite file: refusals change nothing, undo restores exactly."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import assistant, chat_turn, new_store, user
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tending_helpers import grow, ids_of, state

from explorer.app.calls import fanout, replay
from explorer.app.calls.conversation_ops import RunOptions
from explorer.app.tending import redo, undo
from explorer.app.tending import tree_actions as ta
from explorer.app.views.tree_view import tended_view
from explorer.compaction.target import ProviderKind, Target
from explorer.providers.base import Provider
from explorer.providers.http import HttpPolicy
from explorer.providers.openai import OpenAIProvider
from explorer.store import Store, StoreError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "providers"))
from provider_server import ProviderServer, ServerState

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SHAPES = st.lists(st.integers(0, 1000), min_size=1, max_size=14)
ACTIONS = st.lists(
    st.tuples(st.sampled_from(["archive", "unarchive", "delete", "delete!", "star", "label",
                               "note", "branch", "checkpoint", "send", "edit", "replay",
                               "fanout"]),
              st.integers(0, 1000)),
    min_size=1, max_size=8,
)


Model = tuple[Provider, RunOptions]


@pytest.fixture(scope="module")
def model() -> Iterator[Model]:
    """A model behind a real loopback server, for the actions that call one (replay, fan-out)."""
    server = ProviderServer(ServerState()).start()
    policy = HttpPolicy(connect_timeout=5, read_timeout=5, max_attempts=1)
    yield (OpenAIProvider("gpt-4.1", None, server.url + "/v1", False, 256, policy),
           RunOptions(Target(ProviderKind.parse("openai"), "gpt-4.1", 100_000,
                             output_reserve=256)))
    server.close()


def _run_model(s: Store, conv: int, action: str, pick: int, i: int, model: Model) -> None:
    """Replay onto an edited prompt, or ask two samples at once: one operation each."""
    if action == "fanout":
        target = fanout.Target("openai:gpt-4.1", *model)
        fanout.fanout(s, conv, f"msg fanned {i}", [target], samples=2)
        return
    edits = sorted(s.edits(conv))
    if not edits:
        raise StoreError("no edited prompt to replay onto")
    onto = edits[pick % len(edits)]
    plan = replay.plan_replay(s, replay.replay_tip(s, onto), onto)
    outcome = replay.replay(s, plan, *model)
    if outcome.change is None:
        raise StoreError(outcome.error or "nothing replayed")


def _act(s: Store, conv: int, action: str, pick: int, i: int, model: Model) -> None:
    nodes = ids_of(s, conv)
    mid = nodes[pick % len(nodes)]
    if action in ("replay", "fanout"):
        _run_model(s, conv, action, pick, i, model)
    elif action == "edit":
        ta.edit(s, conv, mid, f"msg edited {i}")
    elif action == "archive":
        ta.archive(s, mid)
    elif action == "unarchive":
        ta.unarchive(s, mid)
    elif action in ("delete", "delete!"):
        ta.delete(s, mid, with_checkpoints=action == "delete!")
    elif action == "star":
        ta.star(s, mid)
    elif action == "label":
        ta.label(s, mid, f"name {i}")
    elif action == "note":
        ta.note(s, mid, f"note {i}")
    elif action == "branch":
        ta.branch(s, conv, mid)
    elif action == "send":  # how a model call writes its turn (send, rerun, regenerate)
        ta.write_turn(s, conv, "send", [user(f"msg sent {i}"), assistant(f"msg answer {i}")],
                      parent_id=mid)
    else:
        ta.checkpoint(s, conv, f"cp{i}", mid)


def _check_invariants(s: Store, conv: int) -> None:
    """The active path is whole and visible; everything folded or deleted has a marker."""
    tip = s.conversation(conv).tip_id
    assert tip is not None
    path = s.path_ids(tip)
    view = tended_view(s, conv)
    assert not set(path) & view.hidden
    for root in view.marks.archived:
        assert root not in path
        if root not in view.hidden:
            assert any(root in m.roots for m in view.markers if m.kind == "archived")
    assert len([m for m in view.markers if m.kind == "deleted"]) == len(
        {t.parent_id for t in s.tombstones(conv)})


@SETTINGS
@given(shape=SHAPES, tip=st.integers(0, 1000), actions=ACTIONS)
# A replay onto an edit that was archived meanwhile unfolds it: undo must fold it again.
@example(shape=[0, 1, 2, 3, 4], tip=5,
         actions=[("edit", 2), ("branch", 5), ("archive", 6), ("replay", 0)])
def test_T8_every_action_undoes_and_redoes_to_exactly_the_states_it_passed(
    shape: list[int], tip: int, actions: list[tuple[str, int]], model: Model
) -> None:
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "t.db") as s:
        conv = grow(s, shape, tip)
        s.checkpoint(conv, "start")
        states = [state(s, conv)]
        for i, (action, pick) in enumerate(actions):
            before = state(s, conv)
            try:
                _act(s, conv, action, pick, i, model)
            except StoreError:
                assert state(s, conv) == before  # T6/T7: a refusal writes nothing
                continue
            states.append(state(s, conv))
            _check_invariants(s, conv)
        for k in range(len(states) - 2, -1, -1):
            undo.undo(s, conv)
            assert state(s, conv) == states[k]
        with pytest.raises(StoreError, match="nothing to undo"):
            undo.undo(s, conv)
        for k in range(1, len(states)):  # undo then redo is the identity on rows
            redo.redo(s, conv)
            assert state(s, conv) == states[k]
            _check_invariants(s, conv)
        with pytest.raises(StoreError, match="nothing to redo"):
            redo.redo(s, conv)
        if len(states) > 1:  # and a redone action undoes again
            undo.undo(s, conv)
            assert state(s, conv) == states[-2]


@SETTINGS
@given(shape=SHAPES, tip=st.integers(0, 1000), pick=st.integers(0, 1000))
def test_T7_delete_then_undo_restores_exactly_ids_and_all(
    shape: list[int], tip: int, pick: int
) -> None:
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "t.db") as s:
        conv = grow(s, shape, tip)
        active = set(s.path_ids(s.conversation(conv).tip_id or 0))
        off = [m for m in ids_of(s, conv) if m not in active]
        if not off:
            return
        target = off[pick % len(off)]
        before = state(s, conv)
        change = ta.delete(s, target)
        gone = set(change.changed["deleted"])
        assert target in gone and not gone & active
        assert not gone & set(ids_of(s, conv))
        # New messages never take a deleted id, so the undo can always put it back.
        s.append_turn(conv, chat_turn(99))
        undo.undo(s)
        restored = state(s, conv)
        assert [r for r in restored["messages"] if r[0] in gone] == [
            r for r in before["messages"] if r[0] in gone]
        assert {r[0] for r in restored["messages"]} == {r[0] for r in before["messages"]} | set(
            s.path_ids(s.conversation(conv).tip_id or 0))
        redo.redo(s, conv)  # deleted again: under the same tombstone, as the first time
        assert [t.id for t in s.tombstones(conv)] == [change.changed["tombstone"]]
        assert not gone & set(ids_of(s, conv))


def test_T7_the_active_path_is_never_deleted_or_archived(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("c")
        ids = s.append_turn(conv, chat_turn(1))
        before = state(s, conv)
        for action in (ta.delete, ta.archive):
            with pytest.raises(StoreError, match="on the active path"):
                action(s, ids[0])
        assert state(s, conv) == before


def test_T7_a_checkpoint_target_is_deleted_only_when_said_so(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("c")
        first = s.append_turn(conv, chat_turn(1))
        side = s.append_turn(conv, chat_turn(2))
        s.checkpoint(conv, "side-done", side[-1])
        s.branch(conv, first[-1])
        before = state(s, conv)
        with pytest.raises(StoreError, match=r"'side-done'.*--with-checkpoints"):
            ta.delete(s, side[0])
        assert state(s, conv) == before
        change = ta.delete(s, side[0], with_checkpoints=True)
        assert change.changed["checkpoints"] == ["side-done"]
        assert "side-done" not in s.checkpoints(conv)
        undo.undo(s)
        assert s.checkpoints(conv)["side-done"] == side[-1]
        assert state(s, conv) == before


def test_T7_purge_drops_tombstones_for_good_and_says_undo_cannot_return_them(
    tmp_path: Path,
) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("c")
        first = s.append_turn(conv, chat_turn(1))
        side = s.append_turn(conv, [user("side"), assistant("side answer")])
        s.branch(conv, first[-1])
        ta.delete(s, side[0])
        assert [t.root_id for t in s.tombstones(conv)] == [side[0]]
        result = undo.purge(s)
        assert result["messages"] == 2 and s.tombstones(conv) == []
        assert s.operations(conv)[0].state == "purged"
        assert s.search("side") == []
        # The purged deletion is history now: undo goes on to the action before it.
        with pytest.raises(StoreError, match="nothing to undo"):
            undo.undo(s, conv)


def test_T6_archive_writes_no_message_and_leaves_a_marker(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("c")
        first = s.append_turn(conv, chat_turn(1))
        side = s.append_turn(conv, [user("side"), assistant("side answer")])
        s.branch(conv, first[-1])
        third = s.append_turn(conv, chat_turn(3))
        messages = state(s, conv)["messages"]
        ta.archive(s, side[0])
        assert state(s, conv)["messages"] == messages
        view = tended_view(s, conv)
        assert view.hidden == set(side)
        [marker] = view.markers
        assert (marker.at, marker.kind, marker.text()) == (
            first[-1], "archived", "1 archived branch (2 messages)")
        place = view.place([side[0], third[0]], third[0])
        assert place.text() == "1/1 · 1 archived"
        assert tended_view(s, conv, show_all=True).hidden == set()


def test_T8_edit_checkpoint_rewind_are_undone_in_reverse(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("c")
        ids = s.append_turn(conv, chat_turn(1))
        start = state(s, conv)
        ta.checkpoint(s, conv, "one")
        s.append_turn(conv, chat_turn(2))
        after_turn = state(s, conv)
        ta.rewind(s, conv, "one")
        edited = ta.edit(s, conv, ids[0], "prompt 1, said better")
        assert s.conversation(conv).tip_id == edited.changed["created"][0]
        assert undo.undo(s).changed["removed"] == edited.changed["created"]
        undo.undo(s)  # the rewind
        assert state(s, conv) == after_turn
        undo.undo(s)  # the checkpoint; the turn sent in between was no tree action
        assert "one" not in s.checkpoints(conv)
        assert state(s, conv)["messages"] != start["messages"]


def test_T8_undo_refuses_to_drop_an_edit_that_was_continued(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("c")
        ids = s.append_turn(conv, chat_turn(1))
        new = ta.edit(s, conv, ids[0], "again").changed["created"][0]
        s.append_turn(conv, [assistant("answer to again")])
        before = state(s, conv)
        with pytest.raises(StoreError, match=f"message {new} was continued since"):
            undo.undo(s)
        assert state(s, conv) == before


def test_T7_the_purge_setting_drops_only_branches_deleted_long_enough_ago(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = tmp_path / "settings.json"
    monkeypatch.setenv("CONVO_CONFIG", str(settings))
    with new_store(tmp_path) as s:
        conv = s.create_conversation("c")
        first = s.append_turn(conv, chat_turn(1))
        old_side = s.append_turn(conv, [user("old side"), assistant("a")])
        s.branch(conv, first[-1])
        new_side = s.append_turn(conv, [user("new side"), assistant("b")])
        s.branch(conv, first[-1])
        ta.delete(s, old_side[0])
        ta.delete(s, new_side[0])
        # deleted forty days ago
        s.transact(lambda conn: conn.execute(
            "UPDATE tombstones SET created_at = created_at - 40 * 86400 WHERE root_id = ?",
            (old_side[0],)))
        assert undo.purge_expired(s) is None  # no setting: kept until purged by hand
        settings.write_text('{"app": {"purge_deleted_after_days": 30}}')
        gone = undo.purge_expired(s)
        assert gone is not None and [p["root"] for p in gone["purged"]] == [old_side[0]]
        assert [t.root_id for t in s.tombstones(conv)] == [new_side[0]]


def test_T6_switching_into_an_archived_branch_unfolds_it_and_undo_folds_it_again(
    tmp_path: Path,
) -> None:
    with new_store(tmp_path) as s:
        conv = s.create_conversation("c")
        first = s.append_turn(conv, chat_turn(1))
        side = s.append_turn(conv, [user("side"), assistant("side answer")])
        s.branch(conv, first[-1])
        s.append_turn(conv, chat_turn(3))
        ta.archive(s, side[0])
        folded = state(s, conv)
        change = ta.branch(s, conv, side[-1])  # the active path is never folded away
        assert change.changed["unarchived"] == [side[0]]
        assert tended_view(s, conv).hidden == set() and s.marks(conv).archived == {}
        unfolded = state(s, conv)
        undo.undo(s, conv)
        assert state(s, conv) == folded
        redo.redo(s, conv)
        assert state(s, conv) == unfolded


def test_T6_T7_markers_say_how_much_they_stand_for_in_plain_words() -> None:
    from explorer.app.views.tree_view import Marker
    assert Marker(3, "archived", (4,), 1).text() == "1 archived branch (1 message)"
    assert Marker(3, "archived", (4, 5), 6).text() == "2 archived branches (6 messages)"
    assert Marker(3, "deleted", (4,), 1, (9,)).text() == "deleted branch — undo (1 message)"


def test_T7_a_deleted_branch_is_restored_out_of_turn_and_T6_unfolds_at_its_point(
    tmp_path: Path,
) -> None:
    from explorer.app.importing.demo import load_demo
    with Store(tmp_path / "d.db") as s:
        conv = load_demo(s)
        start = state(s, conv)
        ta.archive(s, 8)
        deleted = ta.delete(s, 18).changed["tombstone"]
        ta.note(s, 22, "later")
        undo.restore_deleted(s, deleted)  # not the newest action: no other is undone
        assert state(s, conv)["messages"] == start["messages"]
        assert [m.at for m in tended_view(s, conv).markers] == [7]
        with pytest.raises(StoreError, match="not waiting for an undo"):
            undo.restore_deleted(s, deleted)
        unfolded = ta.unarchive_at(s, conv, [7])
        assert unfolded.changed == {"unarchived": [8], "messages": 4}
        with pytest.raises(StoreError, match="no archived branch"):
            ta.unarchive_at(s, conv, [7])
        for _ in range(3):  # the unfold, the note, the archive: the restore is undone already
            undo.undo(s, conv)
        assert state(s, conv) == start
        for _ in range(3):
            redo.redo(s, conv)
        assert tended_view(s, conv).markers == []  # unfolded, restored, and the note is back
        assert s.marks(conv).notes == {22: "later"}
        with pytest.raises(StoreError, match="nothing to redo"):  # the unfold came after the
            redo.redo(s, conv)  # restore: a new action, so the restore is not redone


def test_the_transcript_knows_which_notes_it_can_link() -> None:
    from explorer.app.views.tree_view import MERGE_NOTE, Marker, marker_kind, merged_tip
    assert marker_kind(Marker(3, "archived", (4, 5), 6).text()) == "archived"
    assert marker_kind(Marker(3, "deleted", (4,), 1, (9,)).text()) == "deleted"
    assert marker_kind("archived") is None and marker_kind("note: 2 archived branches") is None
    assert merged_tip(MERGE_NOTE.format(tip=11)) == 11 and merged_tip("merged back as 40") is None
