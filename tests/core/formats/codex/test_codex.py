"""Codex CLI rollouts: the recorded sessions, damaged and old-shaped files, reading a tail."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from agent_home import CODEX_SHORT, codex_rollout
from codex_items import PATCH, SUMMARY, with_items

from explorer.formats import codex
from explorer.formats.base import FormatError
from explorer.formats.registry import detect
from explorer.formats.tailing import Cursor
from explorer.tree.paths import message_path


def one(path: Path) -> codex.reader.ImportedConversation:
    convs = list(codex.read(path))
    assert len(convs) == 1
    return convs[0]


def test_every_recorded_rollout_is_detected_as_codex(tmp_path: Path) -> None:
    for path in (codex_rollout(), codex_rollout(CODEX_SHORT), with_items(tmp_path / "r.jsonl")):
        assert detect(path) is codex


def test_the_recorded_rollout_keeps_session_folder_and_version() -> None:
    conv = one(codex_rollout())
    assert conv.source_id == "01a24369-7080-7f33-80e6-888c77e99a4c"
    assert conv.meta["cwd"] == "/tmp/convo-corpus/codex/work"
    assert conv.meta["version"] == "0.171.0" and "git_branch" not in conv.meta  # no repository
    assert conv.title == "Say hello and tell me what this folder is for."
    skills, env, prompt = conv.messages[:3]
    assert skills.role == env.role == "system"  # what Codex told the model, not the person
    assert skills.source_meta["codex_role"] == "developer"
    assert env.source_meta["codex_role"] == "user" and env.text.startswith("<environment_")
    assert prompt.is_prompt
    assert [m.text for m in conv.messages if m.is_prompt] == [
        "Say hello and tell me what this folder is for.",
        "Look around.\nTOOL:bash:ls -1\nTOOL:bash:cat notes.txt", "Thanks, that is all."]
    uses = [p for m in conv.messages for p in m.tool_uses()]
    results = {p.tool_use_id for m in conv.messages for p in m.tool_results()}
    assert [json.loads(p.text)["cmd"] for p in uses] == ["ls -1", "cat notes.txt"]
    assert {p.tool_use_id for p in uses} == results and not conv.incomplete
    answers = [m for m in conv.messages if m.role == "assistant"]
    assert {m.model for m in answers} == {"fake-model"}
    assert sum(1 for m in answers if m.usage is not None) == 5  # one per token_count event
    assert conv.ignored_records["event_msg:item_completed"] == 10
    assert conv.ignored_records["token_usage_record"] == 5


def test_every_item_chains_to_the_one_before(tmp_path: Path) -> None:
    for path in (codex_rollout(), with_items(tmp_path / "r.jsonl")):
        conv = one(path)
        chain = message_path({m.id: m for m in conv.messages}, conv.tip)
        assert [m.id for m in chain] == [m.id for m in conv.messages]


def test_reasoning_patches_and_searches_are_kept(tmp_path: Path) -> None:
    conv = one(with_items(tmp_path / "r.jsonl"))
    parts = [p for m in conv.messages for p in m.parts]
    thinking = [p for p in parts if p.kind == "thinking"]
    assert len(thinking) == 3 and all("encrypted_content" in p.meta for p in thinking)
    assert all(p.text == "" for p in thinking)  # summaries were off: only the sealed part
    [patch] = [p for p in parts if p.kind == "tool_use" and p.tool_name == "apply_patch"]
    assert patch.meta["custom"] is True and patch.text == PATCH
    [result] = [p for p in parts
                if p.kind == "tool_result" and p.tool_use_id == patch.tool_use_id]
    assert "M src/app.py" in result.text
    [search] = [p for p in parts if p.tool_name == "web_search"]
    assert search.tool_use_id is None and json.loads(search.text)["query"] == "what is notes.txt"
    assert not conv.incomplete


def test_a_compacted_record_is_kept_and_the_context_restarts_after_it(tmp_path: Path) -> None:
    conv = one(with_items(tmp_path / "r.jsonl"))
    [record] = conv.compactions
    assert record.kind == "summary" and record.summary == SUMMARY
    assert record.meta["replacement_items"] == 2
    keys = [m.id for m in conv.messages]
    assert keys.index(conv.context_start) == keys.index(record.message_key) + 1
    start = next(m for m in conv.messages if m.id == conv.context_start)
    assert start.text == "Thanks, that is all."  # the first prompt after the compaction


def line(kind: str, payload: dict[str, object], ts: str = "2026-01-01T00:00:00Z") -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload})


def meta_line(sid: str = "s-1") -> str:
    return line("session_meta", {"id": sid, "cwd": "/work/p", "cli_version": "0.50.0",
                                 "git": {"branch": "dev"}})


def msg(role: str, text: str) -> str:
    kind = "input_text" if role == "user" else "output_text"
    return line("response_item", {"type": "message", "role": role,
                                  "content": [{"type": kind, "text": text}]})


def test_damaged_lines_are_named_and_the_rest_is_read(tmp_path: Path) -> None:
    f = tmp_path / "rollout.jsonl"
    f.write_text("\n".join([meta_line(), msg("user", "hello"), "[1, 2]", "{oops",
                            msg("assistant", "hi"), '{"type": "response_item", "payl']))
    conv = one(f)
    assert [m.text for m in conv.messages] == ["hello", "hi"]
    joined = " ".join(conv.notes)
    assert "line 3" in joined and "not a JSON object" in joined
    assert "line 4" in joined and "line 6" in joined and "truncated" in joined


def test_a_rollout_without_messages_is_a_format_error(tmp_path: Path) -> None:
    f = tmp_path / "rollout.jsonl"
    f.write_text(meta_line() + "\n")
    with pytest.raises(FormatError, match="without any message"):
        list(codex.read(f))


def test_an_early_rollout_without_the_envelope_is_read(tmp_path: Path) -> None:
    f = tmp_path / "rollout-2025-05-01.jsonl"
    rows = [{"id": "old-1", "timestamp": "2025-05-01T10:00:00Z", "instructions": None},
            {"record_type": "state"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]},
            {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}",
             "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1", "output": "{\"output\":\"a\"}"}]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert detect(f) is codex
    conv = one(f)
    assert conv.source_id == "old-1"
    assert [m.role for m in conv.messages] == ["user", "assistant", "tool"]
    assert conv.messages[2].parts[0].tool_use_id == "c1" and not conv.incomplete


def test_an_image_the_person_pasted_is_kept_as_an_image(tmp_path: Path) -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
    f = tmp_path / "r.jsonl"
    f.write_text("\n".join([meta_line(), line("response_item", {
        "type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "look"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{png}"}]})]) + "\n")
    parts = one(f).messages[0].parts
    assert parts[1].kind == "image" and parts[1].data == b"\x89PNG\r\n\x1a\nfake"
    assert parts[1].media_type == "image/png"


def test_a_tail_read_builds_what_the_whole_read_built(tmp_path: Path) -> None:
    lines = codex_rollout().read_bytes().splitlines(keepends=True)
    f = tmp_path / "live.jsonl"
    f.write_bytes(b"".join(lines[:28]) + lines[28][:50])  # the writer is mid-line
    first = codex.read_tail(f, None)
    assert first.cursor.line == 28  # the half-written line is left for the next read
    f.write_bytes(b"".join(lines))
    second = codex.read_tail(f, Cursor.from_json(json.loads(json.dumps(first.cursor.to_json()))))
    whole = one(codex_rollout())
    got = first.conversation.messages + second.conversation.messages
    assert [(m.id, m.parent_id, m.role, m.model) for m in got] == [
        (m.id, m.parent_id, m.role, m.model) for m in whole.messages]
    assert second.conversation.source_id == whole.source_id
    assert second.cursor.offset == f.stat().st_size
