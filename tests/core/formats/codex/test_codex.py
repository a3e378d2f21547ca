"""Codex CLI rollouts: the real samples, damaged and old-shaped files, and reading a tail."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from explorer.formats import codex
from explorer.formats.base import FormatError
from explorer.formats.registry import detect
from explorer.formats.tailing import Cursor
from explorer.tree.paths import message_path

SEP_2025 = "codex/codex.jsonl"
FEB_2026 = "codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
MAY_2026 = "codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"


def one(path: Path) -> codex.reader.ImportedConversation:
    convs = list(codex.read(path))
    assert len(convs) == 1
    return convs[0]


def test_every_sample_is_detected_as_codex(samples_dir: Path) -> None:
    for name in (SEP_2025, FEB_2026, MAY_2026):
        assert detect(samples_dir / name) is codex


def test_the_2025_rollout_keeps_session_folder_branch_and_version(samples_dir: Path) -> None:
    conv = one(samples_dir / SEP_2025)
    assert conv.source_id == "01996135-afde-7911-97f0-d863511eca56"
    assert conv.meta["cwd"] == "/proj/ds906659/gai/claude-code"
    assert conv.meta["git_branch"] == "main" and conv.meta["version"] == "0.39.0"
    assert conv.title.startswith("幫我檢查一下 go.mod")  # the request, not the IDE preamble
    first, prompt = conv.messages[0], conv.messages[1]
    assert first.role == "system" and first.source_meta["codex_role"] == "user"
    assert prompt.is_prompt
    uses = [p for m in conv.messages for p in m.tool_uses()]
    results = {p.tool_use_id for m in conv.messages for p in m.tool_results()}
    assert len(uses) == 18 and {p.tool_use_id for p in uses} == results
    assert not conv.incomplete
    answers = [m for m in conv.messages if m.role == "assistant"]
    assert {m.model for m in answers} == {"aide-gpt-5"}
    assert sum(1 for m in answers if m.usage is not None) == 18
    assert conv.ignored_records["event_msg:agent_message"] == 9


def test_every_item_chains_to_the_one_before(samples_dir: Path) -> None:
    conv = one(samples_dir / MAY_2026)
    path = message_path({m.id: m for m in conv.messages}, conv.tip)
    assert [m.id for m in path] == [m.id for m in conv.messages]


def test_the_2026_rollout_has_reasoning_patches_and_searches(samples_dir: Path) -> None:
    conv = one(samples_dir / MAY_2026)
    parts = [p for m in conv.messages for p in m.parts]
    thinking = [p for p in parts if p.kind == "thinking"]
    assert len(thinking) == 25 and all("encrypted_content" in p.meta for p in thinking)
    assert all(p.text == "" for p in thinking)  # summaries were off: only the sealed part
    patches = [p for p in parts if p.kind == "tool_use" and p.tool_name == "apply_patch"]
    assert len(patches) == 3 and patches[0].meta["custom"] is True
    assert patches[0].text.startswith("*** Begin Patch")
    searches = [p for p in parts if p.tool_name == "web_search"]
    assert len(searches) == 3 and all(p.tool_use_id is None for p in searches)
    assert not conv.incomplete
    assert conv.meta["git_branch"] == "feat/codex-agent-plugin"


def test_a_compacted_record_is_kept_and_the_context_restarts_after_it(samples_dir: Path) -> None:
    conv = one(samples_dir / FEB_2026)
    assert len(conv.compactions) == 1
    record = conv.compactions[0]
    assert record.kind == "summary" and record.meta["replacement_items"] > 0
    keys = [m.id for m in conv.messages]
    assert keys.index(conv.context_start) == keys.index(record.message_key) + 1
    roles = {m.source_meta.get("codex_role") for m in conv.messages if m.role == "system"}
    assert "developer" in roles
    thinking = [p for m in conv.messages for p in m.parts if p.kind == "thinking"]
    assert sum(1 for p in thinking if p.text.startswith("[REDACTED_TEXT")) == 199


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


def test_a_tail_read_builds_what_the_whole_read_built(samples_dir: Path, tmp_path: Path) -> None:
    lines = (samples_dir / MAY_2026).read_bytes().splitlines(keepends=True)
    f = tmp_path / "live.jsonl"
    f.write_bytes(b"".join(lines[:300]) + lines[300][:50])  # the writer is mid-line
    first = codex.read_tail(f, None)
    assert first.cursor.line == 300  # the half-written line is left for the next read
    f.write_bytes(b"".join(lines))
    second = codex.read_tail(f, Cursor.from_json(json.loads(json.dumps(first.cursor.to_json()))))
    whole = one(samples_dir / MAY_2026)
    got = first.conversation.messages + second.conversation.messages
    assert [(m.id, m.parent_id, m.role, m.model) for m in got] == [
        (m.id, m.parent_id, m.role, m.model) for m in whole.messages]
    assert second.conversation.source_id == whole.source_id
    assert second.cursor.offset == f.stat().st_size
