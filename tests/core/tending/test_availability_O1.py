"""O1: one availability per operation; a turn node's whole-turn operations read only theirs."""

from __future__ import annotations

from pathlib import Path

from explorer.app.importing.demo import load_demo
from explorer.app.ops import OPERATIONS
from explorer.app.ops.availability import for_message, for_whole_turn
from explorer.store import Store


def test_O1_the_whole_turn_reading_says_what_the_full_one_says_for_those_operations(
        tmp_path: Path) -> None:
    whole = {o.id for o in OPERATIONS if o.whole_turn}
    assert whole == {"archive", "delete"}
    with Store(tmp_path / "d.db") as store:
        load_demo(store)
        for node in store.skeleton(1):
            full = for_message(store, 1, node.id)
            assert for_whole_turn(store, 1, node.id) == {k: full[k] for k in whole}
