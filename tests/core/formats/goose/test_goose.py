"""Goose sessions, as the authored fixtures lay them out: a JSON Lines session and
sessions.db read faithfully, and a sync re-reads only the session that grew."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from explorer.formats import goose
from explorer.formats.registry import detect
from tests.corpus import CORPUS

SESSIONS = CORPUS / "authored" / "goose" / "home" / ".local" / "share" / "goose" / "sessions"


def test_a_json_lines_session_keeps_thinking_and_pairs_the_shell_call() -> None:
    path = SESSIONS / "20261204_1.jsonl"
    assert detect(path) is goose
    [conv] = goose.read(path)
    assert conv.title == "Look around" and conv.meta["working_dir"].endswith("/work")
    assert [m.role for m in conv.messages] == ["user", "assistant", "tool", "assistant"]
    assert [p.kind for p in conv.messages[1].parts] == ["thinking", "text", "tool_use"]
    assert conv.messages[1].parts[2].tool_name == "developer__shell"
    assert conv.messages[2].parts[0].tool_use_id == "toolu_g1"
    assert conv.messages[0].created_at == 1796400000


def test_sessions_db_reads_each_session_with_its_name_and_model() -> None:
    path = SESSIONS / "sessions.db"
    assert detect(path) is goose
    [conv] = goose.read(path)
    assert conv.title == "Read the notes" and conv.source_id == "20261204_2"
    assert {m.model for m in conv.messages if m.role == "assistant"} == {"claude-sonnet-4"}
    assert conv.messages[2].role == "tool" and not conv.incomplete


def test_S1_only_the_session_that_grew_is_read_again(tmp_path: Path) -> None:
    db_path = tmp_path / "sessions.db"
    shutil.copy(SESSIONS / "sessions.db", db_path)
    convs, mark = goose.read_changed(db_path, None) or ([], {})
    assert len(convs) == 1
    assert goose.read_changed(db_path, mark) == ([], mark)
    with sqlite3.connect(db_path) as db:
        db.execute("INSERT INTO sessions (id, working_dir, name) VALUES ('other', '/w', 'B')")
        db.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp) "
                   "VALUES ('other', 'user', ?, 1)",
                   (json.dumps([{"type": "text", "text": "hi"}]),))
    db.close()
    changed, _ = goose.read_changed(db_path, mark) or ([], {})
    assert [c.source_id for c in changed] == ["other"]


def test_damaged_lines_and_unknown_content_are_named(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    text = (SESSIONS / "20261204_1.jsonl").read_text()
    path.write_text(text + "{oops\n" + json.dumps({"role": "assistant", "content": [
        {"type": "frobnicate"}, {"type": "text", "text": "ok"}]}) + "\n")
    [conv] = goose.read(path)
    assert any("line 6" in n for n in conv.notes)
    assert any("'frobnicate'" in n for n in conv.notes)
    assert conv.messages[-1].text == "ok"
