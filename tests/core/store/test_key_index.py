"""A fresh import's key maps are one table of positions (V2: a huge import stays small)."""

from __future__ import annotations

from explorer.store.key_index import ByKey, RowIds, positions
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
