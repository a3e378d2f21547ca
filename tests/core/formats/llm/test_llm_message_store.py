"""llm 0.36's message store, read from a logs.db llm itself wrote (make_llm036_db.py)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from explorer.app.sharing.exporting import EXPORTERS
from explorer.formats import llm
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.registry import detect
from explorer.tree.model import Message
from explorer.tree.paths import message_path

FIXTURE = Path(__file__).parent / "fixtures" / "llm036_logs.db"


def _convs(path: Path = FIXTURE) -> list[ImportedConversation]:
    return list(llm.read(path))


def _path(conv: ImportedConversation) -> list[Message]:
    return message_path({m.id: m for m in conv.messages}, conv.tip)


def _titled(title: str, path: Path = FIXTURE) -> ImportedConversation:
    return next(c for c in _convs(path) if c.title.startswith(title))


def test_the_fixture_is_llm_036s_own_schema() -> None:
    with sqlite3.connect(f"{FIXTURE.as_uri()}?mode=ro", uri=True) as conn:
        cols = {r[1] for r in conn.execute("PRAGMA table_info(parts)")}
        migrations = {r[0] for r in conn.execute("SELECT name FROM _llm_migrations")}
    conn.close()
    assert cols == {"id", "message_hash", "position", "type", "tool_name", "text", "payload"}
    assert "m023_message_store" in migrations


def test_llm036_tool_call_keeps_name_arguments_id_and_output() -> None:
    conv = _titled("Please add 2 and 3")
    path = _path(conv)
    assert [m.role for m in path] == ["user", "assistant", "tool", "assistant"]
    call = path[1].tool_uses()[0]
    assert (call.tool_name, call.tool_use_id, json.loads(call.text)) == (
        "add", "call_add_1", {"a": 2, "b": 3})
    assert path[1].text == "Let me add those."
    result = path[2].tool_results()[0]
    assert (result.tool_name, result.tool_use_id, result.text, result.is_error) == (
        "add", "call_add_1", "5", False)
    assert path[3].text == "The tools said: 5."


def test_llm036_failed_tool_keeps_its_output_and_exception() -> None:
    result = _path(_titled("Please fail"))[2].tool_results()[0]
    assert result.is_error and result.tool_name == "boom"
    assert result.text == "Error: the boom tool failed on purpose"
    assert result.meta["exception"] == "ValueError: the boom tool failed on purpose"


def test_llm036_parallel_calls_pair_with_their_results() -> None:
    path = _path(_titled("Please add twice"))
    calls = path[1].tool_uses()
    results = path[2].tool_results()
    assert [json.loads(c.text) for c in calls] == [{"a": 1, "b": 1}, {"a": 4, "b": 5}]
    assert [r.tool_use_id for r in results] == [c.tool_use_id for c in calls]
    assert [r.text for r in results] == ["2", "9"]


def test_llm036_fragment_prompt_is_resolved_not_empty() -> None:
    conv = _titled("The harbour opens")
    prompt = _path(conv)[0]
    assert prompt.role == "user"
    assert prompt.text == "The harbour opens at six.\nBoats leave at seven.\n\nWhen do boats leave?"
    assert not [n for n in conv.notes if "fragment" in n]


def test_llm036_user_messages_carry_the_turns_time() -> None:
    for conv in _convs():
        undated = [m.id for m in conv.messages if m.created_at is None]
        assert undated == [], conv.title
    conv = _titled("Hello there")
    path = _path(conv)
    assert [m.role for m in path] == ["user", "assistant", "user", "assistant"]
    times = [m.created_at or 0.0 for m in path]
    assert times == sorted(times) and times[2] > times[1]
    assert path[1].model == "scripted" and path[1].usage is not None


def test_llm036_every_exporter_answers_every_call() -> None:
    for conv in _convs():
        for name in ("anthropic", "openai", "claude-code", "pi"):
            notes: list[str] = []
            list(EXPORTERS[name].lines({"title": conv.title}, conv.messages, conv.tip, notes))
            assert not [n for n in notes if "interrupted" in n or "cannot be answered" in n], (
                name, conv.title, notes)


def test_llm036_missing_fragment_is_named_not_silently_empty(tmp_path: Path) -> None:
    db = tmp_path / "logs.db"
    shutil.copy(FIXTURE, db)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM part_fragments")
        conn.execute("DELETE FROM turn_fragments")
        conn.execute("DELETE FROM fragments")
    conn.close()
    conv = _titled("The harbour opens", db)
    assert "When do boats leave?" in _path(conv)[0].text
    assert any("fragment 1 is missing" in n for n in conv.notes)


def _no_id_store(path: Path) -> Path:
    """The fixture with the call ids taken out of the payloads (providers that give none)."""
    shutil.copy(FIXTURE, path)
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT id, payload FROM parts WHERE type IN"
                            " ('tool_call', 'tool_result')").fetchall()
        for pid, payload in rows:
            data = json.loads(payload)
            data.pop("tool_call_id", None)
            conn.execute("UPDATE parts SET payload = ? WHERE id = ?", (json.dumps(data), pid))
    conn.close()
    return path


def test_llm_tool_calls_without_call_id_are_paired_by_order(tmp_path: Path) -> None:
    db = _no_id_store(tmp_path / "logs.db")
    conv = _titled("Please add twice", db)
    path = _path(conv)
    calls, results = path[1].tool_uses(), path[2].tool_results()
    ids = [c.tool_use_id for c in calls]
    assert all(ids) and len(set(ids)) == 2
    assert [r.tool_use_id for r in results] == ids
    assert any("no call id" in n for n in conv.notes)
    again = _titled("Please add twice", db)  # stable: the same ids on every import
    assert [c.tool_use_id for c in _path(again)[1].tool_uses()] == ids
    for name in ("anthropic", "openai", "claude-code", "pi"):
        notes: list[str] = []
        list(EXPORTERS[name].lines({"title": conv.title}, conv.messages, conv.tip, notes))
        assert not [n for n in notes if "cannot be answered" in n or "interrupted" in n], name


def test_llm_classic_tool_calls_without_call_id_are_paired_by_order(tmp_path: Path) -> None:
    db = tmp_path / "logs.db"
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE responses (id TEXT, prompt TEXT, response TEXT, conversation_id TEXT,
              datetime_utc TEXT);
            CREATE TABLE tool_calls (response_id TEXT, name TEXT, arguments TEXT,
              tool_call_id TEXT);
            CREATE TABLE tool_results (response_id TEXT, name TEXT, output TEXT,
              tool_call_id TEXT, exception TEXT);
            INSERT INTO responses VALUES ('r1', 'weather?', '', 'c', '2025-01-01T10:00:00'),
              ('r2', NULL, 'sunny and cold', 'c', '2025-01-01T10:00:05');
            INSERT INTO tool_calls VALUES ('r1', 'temp', '{"city": "Oslo"}', NULL),
              ('r1', 'sky', '{"city": "Oslo"}', NULL);
            INSERT INTO tool_results VALUES ('r2', 'temp', '-3', NULL, NULL),
              ('r2', 'sky', 'clear', NULL, NULL);
        """)
    conn.close()
    conv = _convs(db)[0]
    by_id = {m.id: m for m in conv.messages}
    calls = by_id["r1:response"].tool_uses()
    results = by_id["r2:prompt"].tool_results()
    assert [c.tool_use_id for c in calls] == ["r1:response:call0", "r1:response:call1"]
    assert [(r.tool_use_id, r.text) for r in results] == [
        ("r1:response:call0", "-3"), ("r1:response:call1", "clear")]


def test_damaged_sqlite_is_reported_as_a_damaged_database(tmp_path: Path) -> None:
    from explorer.app.importing.run import import_paths
    from explorer.store import Store

    cut = tmp_path / "logs.db"
    data = FIXTURE.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    assert detect(cut) is llm
    with pytest.raises(FormatError, match="damaged SQLite database"):
        list(llm.read(cut))
    store = Store(tmp_path / "explorer.db")
    try:
        report = import_paths(store, [cut])
    finally:
        store.close()
    assert report.errors and "damaged SQLite database" in report.errors[0]
    assert "not a transcript" not in " ".join(report.errors)


def test_a_healthy_sqlite_file_of_another_program_is_not_claimed(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER, body TEXT)")
    conn.close()
    assert detect(other) is None
