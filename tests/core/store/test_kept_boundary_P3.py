"""P3, V2: a tip's clean boundary is derived once and kept in the file, and a change to
the parts it was derived from drops it, so a start reads one row instead of walking a
100,000-message path, and never a stale answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import statements_run, tool_call, tool_result, user
from test_clean_boundary_follows_the_tip import crashed

from explorer.store import Store, boundary
from explorer.store.shared_answers import SharedAnswers


def _kept(s: Store) -> dict[int, int | None]:
    return {int(t): b for t, b in s.reader.execute(
        "SELECT tip_id, boundary FROM clean_boundaries")}


@pytest.fixture(autouse=True)
def forgetful(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with nothing remembered in memory, as a new process does."""
    monkeypatch.setattr(boundary, "_known", SharedAnswers(boundary.REMEMBERED))


def _walks(s: Store, conv: int) -> int:
    """How many path walks for tool parts reading the conversation makes."""
    with statements_run(s.reader) as seen:
        s.conversation(conv)
    return sum("tool_use_id" in q and "RECURSIVE" in q for q in seen)


def test_P3_an_import_keeps_the_new_conversations_boundary(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as s:
        conv = s.import_conversation(crashed()).conversation_id
        u2 = s.path(conv, None)[2].id
        tip = s.conversation(conv, boundary=False).tip_id
        assert tip is not None
        assert _kept(s) == {tip: u2}
        assert _walks(s, conv) == 0
        assert s.conversation(conv).clean_tip_id == u2


def test_P3_a_derived_boundary_is_kept_and_read_on_the_next_start(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    with Store(db) as s:
        conv = s.import_conversation(crashed()).conversation_id
        s.append_turn(conv, [tool_result("t9", "built"), user("and?")])
        tip = s.conversation(conv, boundary=False).tip_id
        assert tip is not None and tip not in _kept(s)
        assert _walks(s, conv) == 1
        clean = s.conversation(conv).clean_tip_id
    boundary._known = SharedAnswers(boundary.REMEMBERED)  # a new process remembers nothing
    with Store(db) as s:  # closing waited for the writer: the answer is in the file
        assert _kept(s)[tip] == clean == tip
        assert _walks(s, conv) == 0
        assert s.conversation(conv).clean_tip_id == tip


def test_P3_rewritten_parts_or_a_deleted_tip_drop_what_was_kept(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as s:
        conv = s.import_conversation(crashed()).conversation_id
        other = s.create_conversation("another")
        s.append_turn(other, [user("hello")])
        s.conversation(other)
        s.writes_done()
        tip = s.conversation(conv, boundary=False).tip_id
        assert tip is not None and len(_kept(s)) == 2
        call = s.reader.execute("SELECT id FROM parts WHERE message_id = ?", (tip,)).fetchone()
        s._writer.call(lambda c: c.execute("DELETE FROM parts WHERE id = ?", call))
        assert set(_kept(s)) == {s.conversation(other, boundary=False).tip_id}
        assert s.conversation(conv).clean_tip_id == tip  # no call waits now: derived again
        s._writer.call(lambda c: c.execute("DELETE FROM messages WHERE id = ?", (tip,)))
        assert tip not in _kept(s)


def test_P3_an_answer_derived_before_the_parts_changed_is_not_kept(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as s:
        conv = s.import_conversation(crashed()).conversation_id
        s.append_turn(conv, [tool_result("t9", "built"), tool_call("Bash", "t10")],
                      incomplete=True)
        tip = s.conversation(conv, boundary=False).tip_id
        assert tip is not None
        top = int(s.reader.execute("SELECT max(id) FROM parts").fetchone()[0])
        s._writer.call(boundary.remember, conv, tip, tip, top - 1)  # seen before the last part
        assert tip not in _kept(s)
        s._writer.call(boundary.remember, conv, tip, 12345, top)
        assert _kept(s)[tip] == 12345  # what the derivation that saw these parts found


def test_P3_an_import_keeps_the_boundary_it_found_without_walking_the_path_again(
        tmp_path: Path) -> None:
    """The import finds the boundary on the tip's path as it sets the tip: it keeps that,
    and does not walk the stored path for tool parts again (0.3 s of a huge import's last,
    single-core stretch)."""
    from contextlib import closing

    from explorer.store.connection import open_connection, transaction
    from explorer.store.import_writes import insert_imported

    Store(tmp_path / "c.db").close()
    with closing(open_connection(tmp_path / "c.db")) as conn:
        with transaction(conn), statements_run(conn) as seen:
            conv = insert_imported(conn, crashed()).conversation_id
        assert not [q for q in seen if "RECURSIVE" in q and "tool_use_id" in q]
        tip, clean = conn.execute("SELECT tip_id, clean_tip_id FROM conversations WHERE id = ?",
                                  (conv,)).fetchone()
        assert clean is not None and clean != tip
        assert boundary._derive(conn, tip) == clean
    with Store(tmp_path / "c.db") as s:
        assert _kept(s) == {tip: clean}
