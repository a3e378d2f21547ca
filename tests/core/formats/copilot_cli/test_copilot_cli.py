"""Copilot CLI event logs: the recording by the real client reads faithfully, a read from a
cursor builds what a whole read builds, and damaged or unknown events are named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from explorer.formats import copilot_cli
from explorer.formats.registry import detect
from tests.corpus import CORPUS

SESSIONS = sorted((CORPUS / "copilot").rglob("events.jsonl"))
LONG = max(SESSIONS, key=lambda p: p.stat().st_size)


def test_the_recording_is_detected_and_reads_as_the_person_typed_it() -> None:
    assert detect(LONG) is copilot_cli
    [conv] = copilot_cli.read(LONG)
    prompts = [m.text for m in conv.messages if m.role == "user"]
    assert prompts[0] == "Say hello and tell me what this folder is for."
    assert not any("current_datetime" in p for p in prompts)
    assert conv.meta["cwd"] == "/tmp/convo-corpus/copilot/work"
    assert conv.meta["version"] == "1.0.102" and conv.meta["instructions"].startswith("You are")
    calls = [p for m in conv.messages for p in m.tool_uses()]
    assert [c.tool_name for c in calls] == ["bash", "view", "create", "edit"]
    assert json.loads(calls[2].text) == {"path": "todo.txt", "file_text": "buy milk"}
    results = {p.tool_use_id: p for m in conv.messages for p in m.tool_results()}
    assert results[calls[1].tool_use_id].text == "first line of the notes\nsecond line\n"
    assert results[calls[0].tool_use_id].tool_name == "bash"
    answers = [m for m in conv.messages if m.role == "assistant"]
    assert all(m.model == "fake-model" and m.usage and m.usage.input_tokens for m in answers)
    assert conv.notes == [] and not conv.incomplete


def test_a_read_from_a_cursor_goes_on_where_the_last_stopped(tmp_path: Path) -> None:
    raw = LONG.read_bytes().splitlines(keepends=True)
    live = tmp_path / "events.jsonl"
    live.write_bytes(b"".join(raw[:20]))
    first = copilot_cli.read_tail(live, None)
    live.write_bytes(b"".join(raw))
    second = copilot_cli.read_tail(live, first.cursor)
    [whole] = copilot_cli.read(LONG)
    got = first.conversation.messages + second.conversation.messages
    assert [(m.id, m.parent_id, m.role, m.text) for m in got] == \
        [(m.id, m.parent_id, m.role, m.text) for m in whole.messages]
    tools = {p.tool_use_id: p.tool_name for m in got for p in m.tool_results()}
    assert None not in tools.values()
    assert copilot_cli.read_tail(live, second.cursor).conversation.messages == []


def test_unknown_events_are_named_once_and_damaged_lines_by_number(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    shutil.copy(SESSIONS[0], path)
    with path.open("a") as out:
        out.write('{"type": "brand.new", "data": {}, "id": "x1"}\n{not json\n')
        out.write('{"type": "brand.new", "data": {}, "id": "x2"}\n')
        out.write(json.dumps({"type": "session.error", "id": "e1", "data": {
            "errorType": "rate_limit", "message": "slow down"}}) + "\n")
        out.write(json.dumps({"type": "session.compaction_complete", "id": "c1", "data": {
            "success": True, "summaryContent": "We listed files."}}) + "\n")
        out.write(json.dumps({"type": "user.message", "id": "u9", "data": {
            "content": "after the summary"}}) + "\n")
    [conv] = copilot_cli.read(path)
    assert [n for n in conv.notes if "brand.new" in n] == [
        "events of type 'brand.new' are not read; skipped"]
    assert any("line" in n and "invalid JSON" in n for n in conv.notes)
    assert conv.ignored_records["brand.new"] == 2
    assert any(m.role == "system" and m.text == "[Error: slow down]" for m in conv.messages)
    [summary] = conv.compactions
    assert summary.summary == "We listed files." and conv.context_start == "u9"
