"""A fresh import's key maps are one table of positions (V2: a huge import stays small)."""

from __future__ import annotations

from pathlib import Path

from explorer.store import Store, StoreError
from explorer.store.key_index import ByKey, RowIds, positions, sound_positions
from explorer.tree.imported import ImportedConversation
from explorer.tree.model import text_message


def test_V2_row_ids_and_messages_by_key_come_from_one_table_of_positions() -> None:
    msgs = [text_message(f"k{i}", f"k{i - 1}" if i else None, "user", str(i)) for i in range(5)]
    where = positions(msgs)
    ids = RowIds(where, 100)
    by_key = ByKey(where, msgs)
    assert dict(ids) == {f"k{i}": 100 + i for i in range(5)}
    assert dict(by_key) == {m.id: m for m in msgs}
    assert "k3" in ids and "k9" not in ids and ids.get("k9") is None
    assert by_key["k2"] is msgs[2] and by_key.get("nope") is None
    assert len(ids) == len(by_key) == 5


def test_V2_a_sound_tree_is_judged_by_the_table_of_positions_it_is_written_with() -> None:
    """One table answers both "does the tree need repair" and "are parents written first";
    a repeated key, a child before its parent or a dangling parent leave it to the repair."""
    msgs = [text_message(f"k{i}", f"k{i - 1}" if i else None, "user", str(i)) for i in range(5)]
    assert sound_positions(msgs) == positions(msgs)
    assert sound_positions([*msgs, msgs[2]]) is None  # a repeated key
    assert sound_positions(list(reversed(msgs))) is None  # children before their parents
    assert sound_positions([*msgs, text_message("x", "gone", "user", "?")]) is None
    assert sound_positions([]) == {}


def test_V2_a_fresh_import_in_any_order_is_written_parents_first_and_repaired_as_before(
        tmp_path: Path) -> None:
    """Children listed before their parents, a duplicate, a dangling parent and a cycle:
    stored as the repair has always stored them, with the same notes."""
    chain = [text_message(f"k{i}", f"k{i - 1}" if i else None, "user", str(i))
             for i in range(6)]
    odd = [*reversed(chain), text_message("k2", "k1", "user", "again"),
           text_message("lost", "nowhere", "user", "dangling"),
           text_message("a", "b", "user", "loop a"), text_message("b", "a", "user", "loop b")]
    with Store(tmp_path / "x.db") as store:
        (outcome,) = store.import_conversations([ImportedConversation(
            "odd", "test", odd, tip="k5", source_id="odd")])
        assert not isinstance(outcome, StoreError)
        assert outcome.added == 9
        assert any("duplicate id 'k2'" in n for n in outcome.notes)
        assert any("parent 'nowhere' is missing" in n for n in outcome.notes)
        assert any("cycle" in n for n in outcome.notes)
        rows = dict(store.reader.execute(
            "SELECT m.source_id, p.source_id FROM messages m "
            "LEFT JOIN messages p ON p.id = m.parent_id").fetchall())
    assert rows["k0"] is None and rows["k5"] == "k4" and rows["lost"] is None
    assert {rows["a"], rows["b"]} & {None}
