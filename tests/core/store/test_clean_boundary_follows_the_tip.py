"""P3: the last clean boundary is derived from the path to the tip whenever it is read,
so a send, branch, edit or rewind never leaves a stale "ends mid-turn" mark."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from helpers import assistant, tool_call, tool_result, user

from explorer.app.views import read as views
from explorer.formats.base import ImportedConversation
from explorer.store import Store, boundary
from explorer.tree.model import Message


def keyed(key: str, parent: str | None, m: Message) -> Message:
    m.id, m.parent_id = key, parent
    return m


def crashed() -> ImportedConversation:
    return ImportedConversation(
        title="crashed", source_format="test", tip="c2", incomplete=True, messages=[
            keyed("u1", None, user("first")), keyed("a1", "u1", assistant("one")),
            keyed("u2", "a1", user("second")),
            keyed("c2", "u2", tool_call("Bash", "t9", {"command": "make"})),
        ])


def test_P3_an_imported_crash_is_marked_at_its_last_boundary(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as s:
        conv = s.import_conversation(crashed()).conversation_id
        info = s.conversation(conv)
        u2 = s.path(conv)[2].id  # after the prompt no tool call waits yet
        assert info.clean_tip_id == u2 != info.tip_id
        assert any("last clean boundary" in line for line in views.tree_lines(s, conv))


def test_P3_completing_the_turn_clears_the_mark(tmp_path: Path) -> None:
    """What ``send`` stores after a crashed tool call: its result and the answer."""
    with Store(tmp_path / "c.db") as s:
        conv = s.import_conversation(crashed()).conversation_id
        s.append_turn(conv, [tool_result("t9", "built"), assistant("done")])
        info = s.conversation(conv)
        assert info.clean_tip_id == info.tip_id
        assert not any("last clean boundary" in line for line in views.tree_lines(s, conv))
        s.append_turn(conv, [user("next"), tool_call("Bash", "t10")], incomplete=True)
        info = s.conversation(conv)
        assert info.clean_tip_id == s.path(conv)[-2].id != info.tip_id


def test_P3_branch_and_edit_move_the_mark_with_the_tip(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as s:
        conv = s.import_conversation(crashed()).conversation_id
        a1, u2 = (m.id for m in s.path(conv)[1:3])
        assert a1 is not None and u2 is not None
        s.branch(conv, a1)
        assert s.conversation(conv).clean_tip_id == a1 == s.conversation(conv).tip_id
        edited = s.edit_prompt(conv, u2, "second, edited")
        assert s.conversation(conv).clean_tip_id == edited
        tip = s.conversation(conv).tip_id
        assert tip is not None
        s.branch(conv, s.path(conv, tip)[-1].id or 0)
        assert s.conversation(conv).clean_tip_id == s.conversation(conv).tip_id


def test_P3_a_conversation_without_messages_has_no_mark(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as s:
        conv = s.create_conversation("empty")
        assert s.conversation(conv).clean_tip_id is None


def test_V2_threads_asking_at_once_share_one_walk_of_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening a conversation, the transcript and the context figure both read its clean
    boundary off the main thread; on a 100,000-message path one walk is enough."""
    with Store(tmp_path / "c.db") as s:
        conv = s.import_conversation(crashed()).conversation_id
        uid = str(s.conversation(conv, boundary=False).meta["uid"])
        tip = s.conversation(conv, boundary=False).tip_id
        s._writer.call(lambda c: c.execute("DELETE FROM clean_boundaries"))  # none kept yet
        db = s.db_path
    walks: list[int] = []
    first_in, go = threading.Event(), threading.Event()
    real = boundary._derive

    def held(conn: sqlite3.Connection, at: int) -> int | None:
        walks.append(at)
        first_in.set()
        go.wait()
        return real(conn, at)

    monkeypatch.setattr(boundary, "_derive", held)
    found: list[int | None] = []

    def ask() -> None:
        conn = sqlite3.connect(db)
        try:
            found.append(boundary.clean_boundary(conn, tip, uid))
        finally:
            conn.close()

    first, second = threading.Thread(target=ask), threading.Thread(target=ask)
    first.start()
    assert first_in.wait(10)
    second.start()
    second.join(0.2)  # it waits for the first walk instead of walking itself
    go.set()
    first.join()
    second.join()
    assert len(walks) == 1 and len(found) == 2 and found[0] == found[1] is not None
