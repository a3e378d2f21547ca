"""Repairs of what real files contain: duplicates, dangling parents, cycles (T5)."""

from __future__ import annotations

from explorer.tree.model import text_message
from explorer.tree.paths import path_to
from explorer.tree.repair import repair_tree


def test_T5_duplicate_ids_keep_the_first() -> None:
    r = repair_tree([text_message("a", None, "user", "first"),
                     text_message("a", None, "user", "second")])
    assert [m.text for m in r.messages] == ["first"]
    assert r.skipped_duplicates == 1 and "duplicate" in r.notes[0]


def test_dangling_parent_becomes_a_root_with_a_note() -> None:
    r = repair_tree([text_message("a", "ghost", "user", "x")])
    assert r.messages[0].parent_id is None
    assert "ghost" in r.notes[0]


def test_cycle_is_cut_and_every_path_terminates() -> None:
    msgs = [text_message("a", "c", "user", "1"), text_message("b", "a", "assistant", "2"),
            text_message("c", "b", "user", "3")]
    r = repair_tree(msgs)
    parents = {m.id: m.parent_id for m in r.messages}
    assert sum(1 for p in parents.values() if p is None) == 1
    for k in parents:
        assert len(path_to(parents, k)) <= 3
    assert any("cycle" in n for n in r.notes)
