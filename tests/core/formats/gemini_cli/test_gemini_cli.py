"""Gemini CLI chats: the JSON and JSON Lines samples, rewritten records, damage, tails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.formats import gemini_cli
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.registry import detect
from explorer.formats.tailing import Cursor

JSON_CHAT = "gemini_cli/session-2025-12-01T21-45-5b959dae.json"
JSONL_CHAT = "gemini_cli/gemini.jsonl"


def one(path: Path) -> ImportedConversation:
    convs = list(gemini_cli.read(path))
    assert len(convs) == 1
    return convs[0]


def test_both_shapes_are_detected_and_the_log_file_is_not(samples_dir: Path) -> None:
    assert detect(samples_dir / JSON_CHAT) is gemini_cli
    assert detect(samples_dir / JSONL_CHAT) is gemini_cli
    assert detect(samples_dir / "gemini_cli" / "logs.json") is None


def test_the_json_chat_splits_each_call_from_its_result(samples_dir: Path) -> None:
    conv = one(samples_dir / JSON_CHAT)
    assert conv.source_id == "5b959dae-8655-4cd1-b10f-720b8c336ea2" and conv.title == "hi"
    calls = [m for m in conv.messages if m.id.endswith(":calls")]
    assert calls and all(m.role == "assistant" and m.tool_uses() for m in calls)
    for m in calls:
        results = next(r for r in conv.messages if r.parent_id == m.id)
        assert results.role == "tool"
        assert [p.tool_use_id for p in results.parts] == [p.tool_use_id for p in m.parts]
    names = {p.tool_name for m in calls for p in m.parts}
    assert names == {"read_file", "list_directory", "write_file", "replace"}
    thoughts = [p for m in conv.messages for p in m.parts if p.kind == "thinking"]
    assert thoughts[0].text.startswith("**Assessing the Prompt's Intent**")
    answer = conv.messages[1]
    assert answer.model == "gemini-3-pro-image-preview"
    assert answer.usage is not None and answer.usage.output_tokens == 55 + 156
    assert not conv.incomplete


def test_the_jsonl_chat_keeps_the_last_copy_and_applies_patches(samples_dir: Path) -> None:
    conv = one(samples_dir / JSONL_CHAT)
    assert conv.ignored_records["rewritten record (last copy kept)"] == 5
    assert conv.meta["lastUpdated"] == "2026-04-23T12:58:35.591Z"  # the last $set
    assert conv.meta["kind"] == "main"
    info = [m for m in conv.messages if m.role == "system"]
    assert [m.text for m in info][-1] == "Request cancelled."
    calls = [m for m in conv.messages if m.id == "52e62e67-5d6b-4a2c-b12d-11b87fe3e4a4:calls"]
    assert len(calls) == 1 and len(calls[0].parts) == 5
    models = [m.model for m in conv.messages if m.role == "assistant" and m.model]
    assert len(set(models)) > 1  # the model changed mid-session
    ids = [m.id for m in conv.messages]
    assert len(ids) == len(set(ids))


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


def test_a_tail_read_adds_the_calls_of_a_rewritten_record(
    samples_dir: Path, tmp_path: Path
) -> None:
    lines = (samples_dir / JSONL_CHAT).read_bytes().splitlines(keepends=True)
    f = tmp_path / "live.jsonl"
    f.write_bytes(b"".join(lines[:6]))  # the first copy of 52e62e67, without its calls
    first = gemini_cli.read_tail(f, None)
    f.write_bytes(b"".join(lines))
    second = gemini_cli.read_tail(f, Cursor.from_json(first.cursor.to_json()))
    new = {m.id: m for m in second.conversation.messages}
    calls = new["52e62e67-5d6b-4a2c-b12d-11b87fe3e4a4:calls"]
    assert calls.parent_id == "52e62e67-5d6b-4a2c-b12d-11b87fe3e4a4"  # stored by the first read
    whole = {m.id: m.parent_id for m in one(samples_dir / JSONL_CHAT).messages}
    got = {m.id: m.parent_id for m in first.conversation.messages}
    got.update({k: m.parent_id for k, m in new.items() if k not in got})
    assert got == whole
