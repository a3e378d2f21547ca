"""An imported conversation is as recent as its newest message: a whole archive imported
today still lists by when each session was used, and a merge that brings newer messages
moves it up (a merge never moves it back)."""

from __future__ import annotations

import time
from pathlib import Path

from helpers import new_store

from explorer.store import Store
from explorer.tree.imported import ImportedConversation
from explorer.tree.model import Message, Part

DAY = 86400.0
START = 1_750_000_000.0


def session(times: list[float | None], sid: str = "s1") -> ImportedConversation:
    msgs = [Message(f"m{i}", f"m{i - 1}" if i else None, "user" if i % 2 == 0 else "assistant",
                    [Part("text", f"message {i}")], created_at=t) for i, t in enumerate(times)]
    return ImportedConversation("A session", "claude_code", msgs, tip=msgs[-1].id, source_id=sid)


def test_an_import_is_as_recent_as_its_newest_message(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        (old,) = store.import_conversations([session([START, START + 60])])
        (new,) = store.import_conversations([session([START + DAY], sid="s2")])
        listed = [c.id for c in store.conversations()]
        assert store.conversation(old.conversation_id).updated_at == START + 60
        assert listed == [new.conversation_id, old.conversation_id]


def test_a_merge_moves_it_up_to_its_newest_message_never_back(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        (first,) = store.import_conversations([session([START, START + 60])])
        store.import_conversations([session([START, START + 60, START + DAY, START + DAY])])
        assert store.conversation(first.conversation_id).updated_at == START + DAY
        store.import_conversations([session([START, START + 60, START + DAY, START + DAY,
                                             START - DAY])])  # a newer line, an older clock
        assert store.conversation(first.conversation_id).updated_at == START + DAY


def test_without_times_it_is_as_recent_as_the_import(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        before = time.time()
        (got,) = store.import_conversations([session([None, None])])
        assert store.conversation(got.conversation_id).updated_at >= before


def test_S1_a_sync_dates_a_session_by_its_messages_and_a_reread_leaves_it_there(
        tmp_path: Path) -> None:
    import os

    from agent_home import claude_sessions

    from explorer.app.importing.agent_homes import Environment
    from explorer.app.importing.sync import sync_sources

    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-work"
    folder.mkdir(parents=True)
    src = claude_sessions()[-1]
    session = folder / src.name
    lines = src.read_bytes().splitlines(keepends=True)
    session.write_bytes(b"".join(lines[:-6]))
    with new_store(tmp_path) as store:
        started = time.time()
        sync_sources(store, Environment(home, {}), {"claude-code"})
        (conv,) = store.conversations()
        newest = max(m.created_at or 0 for m in store.path(conv.id))
        assert conv.updated_at == newest < started  # the recording's own time, not the sync's
        os.utime(session)  # touched, nothing new: read again, stays where it was
        sync_sources(store, Environment(home, {}), {"claude-code"})
        assert store.conversation(conv.id).updated_at == newest
        with session.open("ab") as f:  # the agent wrote on
            f.write(b"".join(lines[-6:]))
        sync_sources(store, Environment(home, {}), {"claude-code"})
        grown = max(m.created_at or 0 for m in store.path(conv.id))
        assert grown > newest and store.conversation(conv.id).updated_at == grown


def test_a_store_from_before_is_dated_by_its_messages_keeping_its_revisions(
        tmp_path: Path) -> None:
    """A store whose imports were dated by their import keeps its kept views: the
    migration moves the dates without touching any conversation's revision."""
    from explorer.store.connection import open_connection
    from explorer.store.migrations import MIGRATIONS

    db = tmp_path / "old.db"
    with Store(db) as store:
        (got,) = store.import_conversations([session([START, START + 60])])
        mine = store.create_conversation("made here")
    conn = open_connection(db)  # as the version before this one left it: import time
    conn.execute("UPDATE conversations SET updated_at = ?", (time.time(),))
    before = conn.execute("SELECT id, revision FROM conversations ORDER BY id").fetchall()
    conn.execute("DELETE FROM _migrations WHERE name >= '0021_dated_by_messages'")
    conn.close()
    assert "0021_dated_by_messages" in [name for name, _ in MIGRATIONS]
    with Store(db) as store:
        assert store.conversation(got.conversation_id).updated_at == START + 60
        assert store.conversation(mine).updated_at > START + DAY  # made here: as it was
        after = store.reader.execute("SELECT id, revision FROM conversations ORDER BY id")
        assert after.fetchall() == before
        assert store.reader.execute("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND "
                                    "name = 'revision_conversations_au'").fetchone()
