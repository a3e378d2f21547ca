"""Gemini CLI chats: the recorded JSON Lines chat and its older JSON shape, rewritten
records, damage, tails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_home import GEMINI, recorded

from explorer.formats import gemini_cli
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.registry import detect
from explorer.formats.tailing import Cursor
from tests.corpus import CORPUS

OLDER = CORPUS / "authored" / "gemini_cli"
JSON_CHAT = OLDER / "session-2026-12-04T23-45-47adf9f6.json"
JSONL_CHAT = recorded("gemini_cli", GEMINI)
WRITE = "207a4449-c360-4060-a4c0-8672e6edbbe7"  # its first copy has words, the second a call


def one(path: Path) -> ImportedConversation:
    convs = list(gemini_cli.read(path))
    assert len(convs) == 1
    return convs[0]


def test_both_shapes_are_detected_and_the_log_file_is_not() -> None:
    assert detect(JSON_CHAT) is gemini_cli
    assert detect(JSONL_CHAT) is gemini_cli
    assert detect(OLDER / "logs.json") is None


def test_the_json_chat_splits_each_call_from_its_result() -> None:
    conv = one(JSON_CHAT)
    assert conv.source_id == "47adf9f6-84d0-4612-bd17-22f061cc49e5"
    assert conv.title == "Say hello and tell me what this folder is for."
    calls = [m for m in conv.messages if m.id.endswith(":calls")]
    assert len(calls) == 4 and all(m.role == "assistant" and m.tool_uses() for m in calls)
    for m in calls:
        results = next(r for r in conv.messages if r.parent_id == m.id)
        assert results.role == "tool"
        assert [p.tool_use_id for p in results.parts] == [p.tool_use_id for p in m.parts]
    names = [p.tool_name for m in calls for p in m.parts]
    assert names == ["run_shell_command", "read_file", "write_file", "replace"]
    answer = conv.messages[1]
    assert answer.model == "gemini-2.5-flash"
    assert answer.usage is not None and answer.usage.output_tokens == 9
    assert not conv.incomplete and conv.notes == []


def test_the_jsonl_chat_keeps_the_last_copy_and_applies_patches() -> None:
    conv = one(JSONL_CHAT)
    assert conv.ignored_records == {"rewritten record (last copy kept)": 4}
    assert conv.meta["lastUpdated"] == "2026-12-04T23:45:12.027Z"  # the last $set
    assert conv.meta["kind"] == "main"
    assert not [m for m in conv.messages if m.role == "system"]  # the session context
    calls = [m for m in conv.messages if m.id == f"{WRITE}:calls"]
    assert len(calls) == 1 and len(calls[0].parts) == 1
    assert calls[0].parts[0].tool_name == "write_file"
    models = {m.model for m in conv.messages if m.role == "assistant"}
    assert models == {"gemini-2.5-flash"}
    ids = [m.id for m in conv.messages]
    assert len(ids) == len(set(ids)) == 18
    # Each resume wrote the header again: the three copies are one session.
    assert [m.text for m in conv.messages if m.role == "user"] == [
        "Say hello and tell me what this folder is for.",
        "Look around.\nTOOL:bash:ls -1\nTOOL:read:/tmp/convo-corpus/gemini_cli/work/notes.txt",
        "Write and then edit a file.\nTOOL:write:/tmp/convo-corpus/gemini_cli/work/todo.txt:"
        "buy milk\\nwalk dog\nTOOL:edit:/tmp/convo-corpus/gemini_cli/work/todo.txt:"
        "buy milk=>buy oat milk"]


def test_a_patch_or_unknown_dollar_line_never_becomes_a_message(tmp_path: Path) -> None:
    f = tmp_path / "session.jsonl"
    f.write_text("\n".join(json.dumps(v) for v in [
        {"sessionId": "g1", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z"},
        {"id": "u1", "type": "user", "content": "hi"},
        {"$set": {"lastUpdated": "2026-01-02T00:00:00Z"}},
        {"$rewindTo": "u1"},
        {"type": "gemini", "content": "no id"},
        {"id": "a1", "type": "gemini", "content": "hello"},
        {"id": "x1", "type": "mystery", "content": "?"},
    ]) + "\n")
    conv = one(f)
    assert [m.id for m in conv.messages] == ["u1", "a1"]
    assert conv.ignored_records["$rewindTo"] == 1 and conv.ignored_records["message:mystery"] == 1
    assert any("without an id" in n for n in conv.notes)


def test_a_call_without_a_result_is_answered_by_its_status(tmp_path: Path) -> None:
    f = tmp_path / "session-x.json"
    f.write_text(json.dumps({"sessionId": "g2", "projectHash": "h", "messages": [
        {"id": "u", "type": "user", "content": [{"text": "run it"}]},
        {"id": "a", "type": "gemini", "content": "", "toolCalls": [
            {"id": "t1", "name": "run_shell_command", "args": {"command": "ls"},
             "status": "cancelled"}]}]}))
    conv = one(f)
    result = conv.messages[-1].parts[0]
    assert result.is_error and result.text == "[no result: cancelled]"
    assert [m.id for m in conv.messages] == ["u", "a:calls", "a:results"]


def test_broken_json_is_a_format_error(tmp_path: Path) -> None:
    f = tmp_path / "session-y.json"
    f.write_text('{"sessionId": "g", "projectHash": "h", "messages": [')
    with pytest.raises(FormatError, match="not valid JSON"):
        list(gemini_cli.read(f))


def test_a_tail_read_adds_the_calls_of_a_rewritten_record(tmp_path: Path) -> None:
    lines = JSONL_CHAT.read_bytes().splitlines(keepends=True)
    f = tmp_path / "live.jsonl"
    f.write_bytes(b"".join(lines[:32]))  # the first copy of the write answer, without its call
    first = gemini_cli.read_tail(f, None)
    assert f"{WRITE}:calls" not in {m.id for m in first.conversation.messages}
    f.write_bytes(b"".join(lines))
    second = gemini_cli.read_tail(f, Cursor.from_json(first.cursor.to_json()))
    new = {m.id: m for m in second.conversation.messages}
    calls = new[f"{WRITE}:calls"]
    assert calls.parent_id == WRITE  # stored by the first read
    whole = {m.id: m.parent_id for m in one(JSONL_CHAT).messages}
    got = {m.id: m.parent_id for m in first.conversation.messages}
    got.update({k: m.parent_id for k, m in new.items() if k not in got})
    assert got == whole
