"""Merging a side branch back: one message after MSG, linked, digest without a model (T3, T8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import assistant, chat_turn, new_store, tool_turn, user
from tending_helpers import state

from explorer.app.tending import merge, undo
from explorer.app.tending.tree_actions import star
from explorer.app.views import read as views
from explorer.app.views.tree_view import preferred_tip
from explorer.store import Store, StoreError


def _forked(s: Store) -> tuple[int, list[int], list[int]]:
    """A main line and a side branch with a tool call that left it after the first turn."""
    conv = s.create_conversation("c")
    first = s.append_turn(conv, chat_turn(1))
    side = s.append_turn(conv, tool_turn(2, tool="Grep", error=True))
    side += s.append_turn(conv, [user("so what now?"), assistant("it was the encoding")])
    s.branch(conv, first[-1])
    main = first + s.append_turn(conv, chat_turn(3))
    return conv, main, side


def test_T8_merge_adds_one_linked_message_and_leaves_the_branch_as_it_was(
    tmp_path: Path,
) -> None:
    with new_store(tmp_path) as s:
        conv, main, side = _forked(s)
        before = state(s, conv)
        change, notes = merge.merge(s, side[-1], main[-1])
        [new] = change.changed["created"]
        assert notes == [] and change.changed["how"] == "digest"
        after = state(s, conv)
        assert after["messages"][:-1] == before["messages"]  # nothing else rewritten
        message = s.message(new)
        assert message.parent_id == main[-1] and s.conversation(conv).tip_id == new
        assert message.source_meta["merged_from"]["tip"] == side[-1]
        assert message.source_meta["merged_from"]["left_at"] == main[1]
        text = message.text
        assert "tool calls: Grep×1; errors: 1" in text and "- prompt 2" in text
        assert "- so what now?" in text and "it was the encoding" in text
        marks = views.tree_marks(s, conv)
        assert f"merges the branch ending at {side[-1]}" in marks.notes[new]
        assert f"merged back as {new}" in marks.notes[side[-1]]
        undo.undo(s)
        assert state(s, conv) == before


@pytest.mark.parametrize("pick, fragment", [
    (lambda main, side: (side[-1], side[0]), "not on the active path"),
    (lambda main, side: (main[-1], main[0]), "no side branch to merge"),
])
def test_T8_merge_refuses_with_the_reason(
    tmp_path: Path, pick: object, fragment: str
) -> None:
    with new_store(tmp_path) as s:
        conv, main, side = _forked(s)
        before = state(s, conv)
        tip, into = pick(main, side)  # type: ignore[operator]
        with pytest.raises(StoreError, match=fragment):
            merge.merge(s, tip, into)
        assert state(s, conv) == before


def test_export_preferred_follows_the_starred_children(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv, main, side = _forked(s)
        assert preferred_tip(s, conv) == main[-1]  # nothing starred: the active path
        star(s, side[-1])
        assert preferred_tip(s, conv) == side[-1]
        assert s.conversation(conv).tip_id == main[-1]  # starring moves no tip
