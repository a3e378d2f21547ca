"""P2: a turn is written whole in one transaction, never half."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import assistant, new_store, tool_call, tool_result, tool_turn, user

from explorer.store import StoreError
from explorer.store import rows as rows_module


def test_P2_a_turn_ending_with_an_unanswered_call_is_refused(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        c = s.create_conversation("t")
        with pytest.raises(StoreError, match="unanswered tool call"):
            s.append_turn(c, [user("go"), tool_call("Bash", "x")])
        assert s.conversation(c).message_count == 0


def test_P2_an_import_marked_incomplete_may_end_mid_turn(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        c = s.create_conversation("t")
        s.append_turn(c, [user("go"), tool_call("Bash", "x")], incomplete=True)
        assert s.conversation(c).message_count == 2
        ids = s.append_turn(c, [tool_result("x", "done"), assistant("ok")])
        assert s.conversation(c).tip_id == ids[-1]


def test_P2_a_failure_inside_the_transaction_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with new_store(tmp_path) as s:
        c = s.create_conversation("t")
        s.append_turn(c, tool_turn(1))
        real = rows_module.insert_rows

        def insert_then_fail(conn: sqlite3.Connection, *args: object) -> None:
            real(conn, *args)  # type: ignore[arg-type]
            raise OSError("disk full")

        monkeypatch.setattr("explorer.store.tree_writes.insert_rows", insert_then_fail)
        tip = s.conversation(c).tip_id
        with pytest.raises(OSError):
            s.append_turn(c, tool_turn(2))
        assert s.conversation(c).message_count == 4
        assert s.conversation(c).tip_id == tip
        assert s.search("prompt 2") == []
