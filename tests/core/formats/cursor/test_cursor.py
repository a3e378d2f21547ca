"""Cursor's stores, as the authored fixtures lay them out: the cursor-agent blob store and
the editor's composer chats read faithfully, and a sync re-reads only a changed chat."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from explorer.formats import cursor
from explorer.formats.registry import detect
from tests.corpus import CORPUS

HOME = CORPUS / "authored" / "cursor" / "home"
[STORE] = sorted((HOME / ".cursor" / "chats").rglob("store.db"))
STATE = HOME / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"


def test_a_cursor_agent_chat_follows_its_blob_tree_in_order() -> None:
    assert detect(STORE) is cursor
    [conv] = cursor.read(STORE)
    assert conv.title == "Look around" and conv.meta["mode"] == "auto-run"
    assert [m.role for m in conv.messages] == ["user", "assistant", "tool", "assistant",
                                               "user", "assistant"]
    assert conv.messages[0].text == "Look around.\nTOOL:bash:ls -1"  # the <user_query> only
    assert conv.meta["instructions"] == "You are a coding agent in the terminal."
    [use] = conv.messages[1].tool_uses()
    assert use.tool_name == "run_terminal_cmd" and json.loads(use.text)["command"] == "ls -1"
    assert conv.messages[1].parts[0].kind == "thinking"
    assert conv.messages[2].parts[0].text == "notes.txt"
    assert {m.model for m in conv.messages if m.role == "assistant"} == {"gpt-5"}


def test_an_editor_chat_splits_a_tool_bubble_into_call_and_result() -> None:
    assert detect(STATE) is cursor
    [conv] = cursor.read(STATE)  # the empty chat beside it imports nothing
    assert conv.title == "Read the notes"
    assert [str(m.id) for m in conv.messages] == ["u1", "a1", "a1:result", "a2", "u2", "a3"]
    call, result = conv.messages[1], conv.messages[2]
    assert call.tool_uses()[0].tool_use_id == result.tool_results()[0].tool_use_id == "toolu_r1"
    assert call.usage is not None and call.usage.input_tokens == 1200
    assert conv.messages[3].usage is None  # Cursor's zero counts are no counts


def test_S1_only_a_changed_chat_is_read_again(tmp_path: Path) -> None:
    state = tmp_path / "state.vscdb"
    shutil.copy(STATE, state)
    convs, mark = cursor.read_changed(state, None) or ([], {})
    assert len(convs) == 1
    assert cursor.read_changed(state, mark) == ([], mark)
    with sqlite3.connect(state) as db:
        key = next(k for (k,) in db.execute("SELECT key FROM cursorDiskKV")
                   if k.startswith("composerData:b7"))
        data = json.loads(db.execute("SELECT value FROM cursorDiskKV WHERE key = ?",
                                     (key,)).fetchone()[0])
        data["fullConversationHeadersOnly"].append({"bubbleId": "u3", "type": 1})
        data["lastUpdatedAt"] += 1000
        db.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(data), key))
        db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (
            f"bubbleId:{data['composerId']}:u3", json.dumps({"type": 1, "text": "One more."})))
    db.close()
    changed, _ = cursor.read_changed(state, mark) or ([], {})
    assert [c.messages[-1].text for c in changed] == ["One more."]


def test_a_listed_bubble_that_is_missing_is_named(tmp_path: Path) -> None:
    state = tmp_path / "state.vscdb"
    shutil.copy(STATE, state)
    with sqlite3.connect(state) as db:
        db.execute("DELETE FROM cursorDiskKV WHERE key LIKE 'bubbleId:%:a2'")
    db.close()
    [conv] = cursor.read(state)
    assert "bubble a2: listed but not stored; skipped" in conv.notes
