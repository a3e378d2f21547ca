"""Crush's ``crush.db``: every prompt, answer, thought, tool call and its result, model,
time and working folder; a sub-agent's session named after its parent; title sessions
kept out; a summary where the context restarts; found through ``projects.json``; a sync
after Crush appended a turn reads and adds only that (S1); damaged rows named, skipped."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from crush_db import (
    CHILD,
    MODEL,
    SESSION,
    SUMMARY_SESSION,
    T0,
    add_message,
    done,
    make_db,
    register,
    text,
)
from helpers import new_store

from explorer.app.importing.agent_homes import Environment, crush_data
from explorer.app.importing.follow import followable, poll
from explorer.app.importing.sources import find_sources
from explorer.app.importing.sync import sync_sources
from explorer.cli.main import main
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.crush import read, read_changed, sniff
from explorer.formats.registry import detect
from explorer.store.reads_all import conversation_messages


def project_db(tmp_path: Path) -> Path:
    return tmp_path / "work" / "notes" / ".crush" / "crush.db"


def by_id(db: Path) -> dict[str | None, ImportedConversation]:
    return {c.source_id: c for c in read(db)}


def test_every_prompt_answer_call_and_result_is_read(tmp_path: Path) -> None:
    db = project_db(tmp_path)
    with make_db(db):
        assert sniff(db) and detect(db) is not None and detect(db).FORMAT == "crush"
        convs = by_id(db)
    assert set(convs) == {SESSION, CHILD, SUMMARY_SESSION}  # the title session is none
    main_conv = convs[SESSION]
    assert main_conv.title == "Look around the notes"
    assert main_conv.ignored_records["session:title"] == 1
    assert main_conv.meta["cwd"] == str(db.parent.parent)
    assert main_conv.created_at == T0
    msgs = main_conv.messages
    assert [m.role for m in msgs] == ["user", "assistant", "user", "assistant", "tool",
                                      "assistant", "tool", "assistant", "tool", "assistant",
                                      "tool", "assistant"]
    assert [m.text for m in msgs if m.role == "user"] == ["Say hello.",
                                                           "Look around.\nTOOL:bash:ls -1"]
    assert all(m.parent_id == (msgs[i - 1].id if i else None) for i, m in enumerate(msgs))
    assert msgs[1].parts[0].kind == "thinking" and msgs[1].parts[0].text == "A greeting."
    assert msgs[1].text == "Hello! (reply 1)" and msgs[1].created_at == T0 + 1
    assert all(m.model == MODEL for m in msgs if m.role == "assistant")
    assert all(m.model is None for m in msgs if m.role != "assistant")
    assert msgs[1].source_meta["finish"]["reason"] == "end_turn"
    calls = {p.tool_use_id: p for m in msgs for p in m.tool_uses()}
    results = {p.tool_use_id: p for m in msgs for p in m.tool_results()}
    assert set(calls) == set(results) == {"call_1", "call_2", "call_task", "call_3", "call_4"}
    assert [calls[c].tool_name for c in ("call_1", "call_2", "call_3", "call_4")] == [
        "bash", "view", "write", "edit"]
    assert json.loads(calls["call_1"].text) == {"command": "ls -1"}
    assert results["call_1"].text == "notes.txt\n" and not results["call_1"].is_error
    assert results["call_2"].is_error and results["call_2"].text == "file not found"
    assert main_conv.tip == "msg-a6" and not main_conv.incomplete


def test_a_sub_agent_is_named_after_its_parent_and_a_summary_restarts_the_context(
        tmp_path: Path) -> None:
    db = project_db(tmp_path)
    with make_db(db):
        convs = by_id(db)
    child = convs[CHILD]
    assert child.title == "Look around the notes › Count the notes"
    assert child.meta["parent_session"] == SESSION
    assert [m.text for m in child.messages] == ["Count the notes", "2 notes"]
    long_one = convs[SUMMARY_SESSION]
    assert long_one.context_start == "msg-s3"
    [compaction] = long_one.compactions
    assert compaction.message_key == "msg-s2" and "long one was started" in compaction.summary
    assert long_one.messages[2].source_meta["summary"] is True


def test_S1_found_through_projects_json_and_synced_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = Environment(home)
    db = project_db(tmp_path)
    register(crush_data(env), db.parent.parent)
    with make_db(db) as writer, new_store(tmp_path) as store:
        assert db.with_name("crush.db-wal").is_file()  # Crush still has it open
        [found] = find_sources(env, {"crush"})
        assert found.exists and found.sessions == 3 and found.problems == []
        assert [(u.path, u.fmt) for u in found.units] == [(db, "crush")]
        first = sync_sources(store, env, {"crush"})
        assert first.errors == [] and first.added_messages == 12 + 2 + 5
        again = sync_sources(store, env, {"crush"})
        assert again.added_messages == 0 and again.unchanged == 1
        cursor = store.sync_records()[str(db)].cursor
        assert cursor is not None
        add_message(writer, SESSION, "msg-u7", "user", [text("One more thing.")], T0 + 200)
        add_message(writer, SESSION, "msg-a7", "assistant", [text("Sure."), done()], T0 + 201)
        writer.commit()
        convs, _ = read_changed(db, cursor["changed"]) or ([], {})
        assert [c.source_id for c in convs] == [SESSION]
        grown = sync_sources(store, env, {"crush"})
        assert grown.added_messages == 2 and grown.appended == 1
        conv = next(c for c in store.conversations() if c.source_id == SESSION)
        texts = [m.text for m in conversation_messages(store.reader, conv.id)]
        assert texts[-2:] == ["One more thing.", "Sure."] and len(texts) == 14


def test_a_crush_conversation_can_be_followed(tmp_path: Path) -> None:
    db = project_db(tmp_path)
    with make_db(db) as writer, new_store(tmp_path) as store:
        register(tmp_path / "data", db.parent.parent)
        sync_sources(store, Environment(tmp_path, {"CRUSH_GLOBAL_DATA": str(tmp_path / "data")}),
                     {"crush"})
        conv = next(c for c in store.conversations() if c.source_id == SESSION)
        followed = followable(store, conv.id)
        assert followed.agent == "Crush" and followed.path == db
        add_message(writer, SESSION, "msg-u7", "user", [text("Still there?")], T0 + 300)
        writer.commit()
        assert poll(store, followed).added == 1


def test_damaged_rows_and_unknown_parts_are_named_and_skipped(tmp_path: Path) -> None:
    db = project_db(tmp_path)
    with make_db(db) as writer:
        writer.execute("INSERT INTO messages (id, session_id, role, parts, created_at, "
                       "updated_at) VALUES ('msg-bad', ?, 'user', '[{not json', ?, ?)",
                       (SESSION, T0 + 8, T0 + 8))
        add_message(writer, SESSION, "msg-odd", "assistant",
                    [text("Still here."), {"type": "hologram", "data": {"x": 1}}], T0 + 9)
        add_message(writer, SESSION, "msg-who", "narrator", [text("Meanwhile.")], T0 + 10)
        writer.commit()
        conv = by_id(db)[SESSION]
    assert any("msg-bad" in n and "not JSON" in n for n in conv.notes)
    assert any("msg-odd" in n and "'hologram'" in n for n in conv.notes)
    assert any("msg-who" in n and "'narrator'" in n for n in conv.notes)
    assert conv.ignored_records["part:hologram"] == 1
    assert conv.messages[-1].id == "msg-odd" and conv.messages[-1].text == "Still here."
    assert len(conv.messages) == 13


def test_a_file_that_is_not_crush_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE sessions (id TEXT)")
    conn.close()
    assert not sniff(other)
    with pytest.raises(FormatError, match="not a Crush database"):
        list(read(other))


def test_a_broken_registry_is_named_and_the_search_goes_on(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "projects.json").write_text("{broken")
    [found] = find_sources(Environment(tmp_path, {"CRUSH_GLOBAL_DATA": str(data)}), {"crush"})
    assert found.exists and found.sessions == 0
    assert any("projects.json" in p and "cannot be read" in p for p in found.problems)


def test_crush_keeps_its_data_where_its_own_overrides_say() -> None:
    home = Path("/home/ana")
    assert crush_data(Environment(home)) == home / ".local/share/crush"
    assert crush_data(Environment(home, {"XDG_DATA_HOME": "/data"})) == Path("/data/crush")
    assert crush_data(Environment(home, {"XDG_DATA_HOME": "/data", "CRUSH_GLOBAL_DATA": "/c"})
                      ) == Path("/c")
    win = Environment(Path("C:/Users/ana"), {"LOCALAPPDATA": "C:/Users/ana/AppData/Local"},
                      "win32")
    assert crush_data(win) == Path("C:/Users/ana/AppData/Local/crush")


def test_S1_convo_sources_json_lists_crush(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = project_db(tmp_path)
    data = tmp_path / "data"
    register(data, db.parent.parent)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(data))
    with make_db(db):
        assert main(["sources", "--json"]) == 0
    rows = {r["tool"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["crush"]["sessions"] == 3 and rows["crush"]["path"] == str(data)
