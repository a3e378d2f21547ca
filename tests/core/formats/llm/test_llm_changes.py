"""A sync of llm's logs.db reads only the conversations that got new responses (S1), what it
stores equals a whole import, and a conversation can be followed while llm logs to it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from agent_home import llm_db
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.follow import followable, poll
from explorer.app.importing.run import import_paths
from explorer.app.importing.sync import sync_sources
from explorer.formats.llm import read_changed
from explorer.store import Store


def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / ".config" / "io.datasette.llm"
    folder.mkdir(parents=True)
    path = llm_db(folder / "logs.db")
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO conversations VALUES ('c2', 'Weather', 'gpt-4o')")
        conn.execute("INSERT INTO responses (id, model, prompt, response, conversation_id, "
                     "datetime_utc) VALUES ('r9', 'gpt-4o', 'rain?', 'no', 'c2', "
                     "'2024-05-02T09:00:00')")
    conn.close()
    return path


def respond(path: Path, rid: str, conv: str, prompt: str, when: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO responses (id, model, prompt, response, conversation_id, "
                     "datetime_utc) VALUES (?, 'gpt-4o', ?, 'ok', ?, ?)",
                     (rid, prompt, conv, when))
    conn.close()


def rows(store: Store) -> list[tuple[Any, ...]]:
    return store.reader.execute(
        "SELECT c.source_id, m.source_id, m.role, p.source_id FROM messages m JOIN conversations "
        "c ON c.id = m.conversation_id LEFT JOIN messages p ON p.id = m.parent_id "
        "ORDER BY 1, 2, 3").fetchall()


def test_S1_a_sync_reads_only_the_conversations_with_new_responses(tmp_path: Path) -> None:
    path = logs(tmp_path)
    env = Environment(tmp_path / "home")
    with new_store(tmp_path) as store:
        first = sync_sources(store, env, {"llm"})
        assert first.reread == 1 and first.added_messages == 6
        cursor = store.sync_records()[str(path)].cursor
        assert cursor is not None
        assert read_changed(path, cursor["changed"]) == ([], cursor["changed"])
        respond(path, "r3", "c1", "and now?", "2024-05-03T10:00:00")
        changed, _ = read_changed(path, cursor["changed"]) or ([], {})
        assert [c.source_id for c in changed] == ["c1"]  # c2 is not read
        again = sync_sources(store, env, {"llm"})
        assert again.appended == 1 and again.added_messages == 2
        with new_store(tmp_path, "whole.db") as whole:
            import_paths(whole, [path])
            assert rows(store) == rows(whole)


def test_an_llm_conversation_can_be_followed(tmp_path: Path) -> None:
    path = logs(tmp_path)
    with new_store(tmp_path) as store:
        import_paths(store, [path])
        conv = next(c for c in store.conversations() if c.source_id == "c2")
        followed = followable(store, conv.id)
        assert followed.agent == "llm" and followed.path == path
        assert poll(store, followed).added == 0
        respond(path, "r10", "c2", "tomorrow?", "2024-05-02T09:05:00")
        done = poll(store, followed)
        assert done.added == 2 and len(done.new_ids) == 2
        assert store.conversation(conv.id).tip_id == done.new_ids[-1]
        assert poll(store, followed).added == 0
