"""The list's columns: every conversation once, newest first, with the folder it belongs to."""

from __future__ import annotations

from pathlib import Path

from helpers import chat_turn

from explorer.store import Store


def test_columns_hold_every_conversation_newest_first_with_counts_forks_and_folders(
        tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as s:
        a = s.create_conversation("in a project", source_format="claude_code",
                                  meta={"cwd": "/work/billing/"})
        s.append_turn(a, chat_turn(0))
        b = s.create_conversation("an export", source_format="chatgpt",
                                  source_path="/exports/2024/conversations.json")
        c = s.create_conversation("", forked_from=(a, s.conversation(a).tip_id or 0))
        d = s.create_conversation("broken meta", meta={"cwd": 7})
        for n, cid in enumerate((d, c, b, a)):  # a is the newest
            s.transact(lambda conn, cid=cid, n=n: conn.execute(
                "UPDATE conversations SET updated_at = ? WHERE id = ?", (1000.0 + n, cid)))
        listed = [c.id for c in s.conversations()]
        s.transact(lambda conn: conn.execute(
            "UPDATE conversations SET meta = '{not json' WHERE id = ?", (b,)))
        cols = s.conversation_columns()
    assert list(cols.ids) == listed == [a, b, c, d] and len(cols) == 4
    assert cols.titles == ["in a project", "an export", "", "broken meta"]
    assert list(cols.counts) == [2, 0, 0, 0]
    assert list(cols.forked_from) == [0, 0, a, 0]
    assert cols.formats == ["claude_code", "chatgpt", "", ""]
    # the session's cwd; else the folder its file was read from (a malformed meta reads
    # as none); else nowhere
    assert cols.folders == ["/work/billing", "/exports/2024", "", ""]
    assert list(cols.updated) == [1003.0, 1002.0, 1001.0, 1000.0]


def test_an_empty_store_has_empty_columns(tmp_path: Path) -> None:
    with Store(tmp_path / "e.db") as s:
        cols = s.conversation_columns()
        assert len(cols) == 0 and cols.titles == [] and s.newest_conversation_ids(1) == []
        assert s.find_conversation("demo", "demo:orders") is None
        assert s.find_conversation_id(1) is None
