"""OpenCode 1.2+ sessions read from ``opencode.db`` (fixture: opencode_db.py, built from
OpenCode's own table definitions): detected by content, one conversation per session,
calls paired with their results, read while OpenCode holds it open, found and synced."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from helpers import new_store
from opencode_db import CHILD, SESSION, T0, add_message, make_db

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.run import import_paths
from explorer.app.importing.sources import find_sources
from explorer.app.importing.sync import sync_sources
from explorer.formats import llm, opencode
from explorer.formats.registry import detect


def _db(tmp_path: Path) -> tuple[Path, sqlite3.Connection]:
    path = tmp_path / "opencode.db"
    return path, make_db(path)


def test_an_opencode_database_is_detected_by_content_not_as_llm(tmp_path: Path) -> None:
    path, writer = _db(tmp_path)
    writer.close()
    other = tmp_path / "renamed.sqlite"
    other.write_bytes(path.read_bytes())
    assert detect(path) is opencode and detect(other) is opencode
    assert not llm.sniff(path)


def test_each_session_is_a_conversation_with_its_calls_paired(tmp_path: Path) -> None:
    path, writer = _db(tmp_path)
    with writer:  # OpenCode keeps the file open and writes through its WAL
        convs = {c.source_id: c for c in opencode.read(path)}
    assert set(convs) == {SESSION, CHILD}  # the session without messages is not created
    conv = convs[SESSION]
    assert conv.title == "Fix the failing checkout test"
    assert conv.meta["cwd"] == "/work/shop" and conv.meta["version"] == "1.2.5"
    assert conv.created_at == T0 / 1000
    shape = [(m.role, [p.kind for p in m.parts]) for m in conv.messages]
    assert shape == [
        ("user", ["text"]),
        ("assistant", ["thinking", "tool_use"]),
        ("tool", ["tool_result"]),
        ("assistant", ["text"]),
        ("user", ["text"]),
        ("assistant", ["tool_use"]),
        ("tool", ["tool_result"]),
        ("assistant", ["text"]),
    ]
    results = [p for m in conv.messages for p in m.tool_results()]
    assert [(r.tool_use_id, r.is_error) for r in results] == [("toolu_01", False),
                                                              ("toolu_02", True)]
    assert results[0].text == "1 failing: expected 3 items, got 2"
    answer = conv.messages[1]
    assert answer.model == "claude-sonnet-4-5" and answer.usage is not None
    assert answer.usage.input_tokens == 1200 and answer.usage.cache_read_tokens == 300
    assert json.loads(answer.parts[1].text) == {"command": "npm test -- checkout"}
    assert any("message msg_a005: its data is not JSON; skipped" in n for n in conv.notes)
    assert conv.ignored_records["part:step-start"] == 1
    assert convs[CHILD].meta["parent_session"] == SESSION


def test_importing_the_database_twice_adds_nothing(tmp_path: Path) -> None:
    path, writer = _db(tmp_path)
    writer.close()
    with new_store(tmp_path) as store:
        first = import_paths(store, [path])
        assert not first.errors
        assert {c.source_id for c in store.conversations()} == {SESSION, CHILD}
        count = sum(c.message_count for c in store.conversations())
        import_paths(store, [path])
        assert sum(c.message_count for c in store.conversations()) == count


def test_S1_sources_find_the_database_and_a_sync_brings_what_opencode_wrote_since(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    path, writer = _db(data)
    env = Environment(home)
    with writer:
        (found,) = find_sources(env, {"opencode"})
        assert found.problems == [] and found.sessions == 3
        assert [u.path for u in found.units] == [path]
        with new_store(tmp_path) as store:
            first = sync_sources(store, env, {"opencode"})
            assert first.errors == [] and first.added_messages == 10
            assert sync_sources(store, env, {"opencode"}).unchanged == 1
            add_message(writer, SESSION, "msg_a006",
                        {"role": "user", "time": {"created": T0 + 6}}, [
                            {"type": "text", "text": "Read it again and retry."}])
            writer.commit()  # into the WAL: the main file may not change at all
            again = sync_sources(store, env, {"opencode"})
            assert again.added_messages == 1 and again.errors == []
            conv = next(c for c in store.conversations() if c.source_id == SESSION)
            assert store.path(conv.id)[-1].text == "Read it again and retry."
