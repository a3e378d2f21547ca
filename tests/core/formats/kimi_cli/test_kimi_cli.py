"""Kimi CLI wire logs: the real client's recording reads faithfully (checked against its own
lines), the model, work folder and title come from the share folder, a read from a cursor
goes on where the last stopped, and damaged or unknown lines are named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from explorer.formats import claude_code, codex, kimi_cli, qwen_code
from explorer.formats.registry import detect
from tests.corpus import CORPUS, manifests

SHARE = CORPUS / "kimi_cli" / "home" / ".kimi"
WIRES = sorted(SHARE.rglob("wire.jsonl"))
PROMPTS = manifests()["kimi_cli"]["prompts"]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def main_session() -> Path:
    """The session continued and resumed (it holds the most turns)."""
    return max(WIRES, key=lambda p: sum(r.get("message", {}).get("type") == "TurnBegin"
                                        for r in lines(p)))


def test_every_line_of_the_recording_reads_as_the_client_wrote_it() -> None:
    path = main_session()
    raw = [r for r in lines(path) if "message" in r]
    said = [r for r in raw if r["message"]["type"] in ("TurnBegin", "ContentPart", "ToolCall",
                                                         "ToolResult")]
    [conv] = kimi_cli.read(path)
    assert len(conv.messages) == len(said)
    for m, r in zip(conv.messages, said, strict=True):
        kind, payload = r["message"]["type"], r["message"]["payload"]
        assert m.created_at == r["timestamp"] and m.source_meta["kimi_type"] == kind
        if kind == "TurnBegin":
            assert m.role == "user" and m.text == payload["user_input"]
        elif kind == "ContentPart":
            assert m.role == "assistant" and m.text == payload["text"]
        elif kind == "ToolCall":
            [use] = m.tool_uses()
            assert use.tool_use_id == payload["id"]
            assert use.text == payload["function"]["arguments"]
        else:
            [result] = m.tool_results()
            assert result.tool_use_id == payload["tool_call_id"]
    assert [m.text for m in conv.messages if m.role == "user"] == PROMPTS[:3]
    assert all(m.model == "fake-model" for m in conv.messages if m.role == "assistant")
    assert conv.source_id == path.parent.name
    assert conv.meta["cwd"] == "/tmp/convo-corpus/kimi_cli/work"
    assert conv.meta["protocol_version"] == lines(path)[0]["protocol_version"] == "1.10"
    assert conv.created_at == said[0]["timestamp"]
    state = json.loads((path.parent / "state.json").read_text())
    assert conv.title == state["custom_title"]
    assert conv.notes == [] and not conv.incomplete


def test_each_tool_call_has_its_result_and_each_step_its_token_counts() -> None:
    [conv] = kimi_cli.read(main_session())
    calls = [p for m in conv.messages for p in m.tool_uses()]
    assert [c.tool_name for c in calls] == ["Shell", "ReadFile", "WriteFile", "StrReplaceFile"]
    assert json.loads(calls[3].text)["edit"] == {"old": "second line", "new": "2nd line"}
    results = {p.tool_use_id: p for m in conv.messages for p in m.tool_results()}
    assert set(results) == {c.tool_use_id for c in calls}
    assert results[calls[0].tool_use_id].text == "notes.txt\n"
    assert results[calls[0].tool_use_id].tool_name == "Shell"
    assert results[calls[0].tool_use_id].meta["message"] == "Command executed successfully."
    assert results[calls[3].tool_use_id].text.startswith("File successfully edited.")
    assert not any(r.is_error for r in results.values())
    for above, below in zip(conv.messages, conv.messages[1:], strict=False):
        assert below.parent_id == above.id
    steps = [r for r in lines(main_session()) if r.get("message", {}).get("type") == "StatusUpdate"]
    counted = [m for m in conv.messages if m.usage is not None]
    assert len(counted) == len(steps)
    assert all(m.role == "assistant" and m.usage and m.usage.input_tokens == 1234
               for m in counted)


def test_without_its_share_folder_a_session_still_reads(tmp_path: Path) -> None:
    loose = tmp_path / "copy" / "wire.jsonl"
    loose.parent.mkdir()
    shutil.copy(main_session(), loose)
    [conv] = kimi_cli.read(loose)
    assert conv.source_id == "copy" and "cwd" not in conv.meta
    assert all(m.model is None for m in conv.messages)
    assert conv.title == PROMPTS[0]


def test_a_read_from_a_cursor_goes_on_where_the_last_stopped(tmp_path: Path) -> None:
    path = main_session()
    live = tmp_path / ".kimi" / path.relative_to(SHARE)
    shutil.copytree(SHARE, tmp_path / ".kimi")
    raw = path.read_bytes().splitlines(keepends=True)
    cut = next(i for i, r in enumerate(raw) if b'"ToolCall"' in r)  # mid-step: call, no result
    live.write_bytes(b"".join(raw[:cut + 1]) + raw[cut + 1][:30])
    first = kimi_cli.read_tail(live, None)
    live.write_bytes(b"".join(raw))
    second = kimi_cli.read_tail(live, first.cursor)
    [whole] = kimi_cli.read(path)
    got = first.conversation.messages + second.conversation.messages
    assert [(m.id, m.parent_id, m.role, m.text, m.model) for m in got] == \
        [(m.id, m.parent_id, m.role, m.text, m.model) for m in whole.messages]
    names = [p.tool_name for m in second.conversation.messages for p in m.tool_results()]
    assert names[0] == "Shell"  # its call was read the time before
    assert second.conversation.source_id == whole.source_id and second.conversation.title == ""
    assert kimi_cli.read_tail(live, second.cursor).conversation.messages == []


def test_detection_claims_wire_logs_and_only_those() -> None:
    for path in WIRES:
        assert detect(path) is kimi_cli
    for path in [*sorted((CORPUS / "qwen_code").rglob("*.jsonl")),
                 *sorted((CORPUS / "codex").rglob("*.jsonl")),
                 *sorted((CORPUS / "claude_code").rglob("*.jsonl"))]:
        assert not kimi_cli.sniff(path), path
        assert detect(path) in (qwen_code, codex, claude_code)
    assert not kimi_cli.sniff(SHARE / "kimi.json")


def test_damaged_lines_are_named_and_unknown_messages_noted_once_per_kind(
        tmp_path: Path) -> None:
    path = tmp_path / "s1" / "wire.jsonl"
    path.parent.mkdir()
    raw = main_session().read_text().splitlines(keepends=True)
    extra = [{"timestamp": 1.0e9, "message": {"type": "Hologram", "payload": {}}},
             {"timestamp": 1.0e9, "message": {"type": "Hologram", "payload": {}}},
             {"timestamp": 1.0e9, "message": {"type": "ApprovalRequest", "payload": {}}},
             {"timestamp": 1.0e9, "message": {"type": "SteerInput", "payload": {"user_input": [
                 {"type": "text", "text": "and one more thing"},
                 {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}},
                 {"type": "sticker"}]}}},
             {"timestamp": 1.0e9, "message": {"type": "ContentPart", "payload": {
                 "type": "think", "think": "Considering it."}}}]
    path.write_text("".join(raw[:2]) + "{not json\n" + "".join(raw[2:])
                    + "".join(json.dumps(e) + "\n" for e in extra))
    [conv] = kimi_cli.read(path)
    assert "skipped line 3: invalid JSON" in conv.notes
    assert [n for n in conv.notes if "Hologram" in n] == [
        f"line {len(raw) + 2}: a wire message of type 'Hologram' is not read; skipped"]
    assert not any("ApprovalRequest" in n for n in conv.notes)
    assert conv.ignored_records["Hologram"] == 2 and conv.ignored_records["ApprovalRequest"] == 1
    steer, think = conv.messages[-2:]
    assert steer.role == "user" and [p.kind for p in steer.parts] == ["text", "image"]
    assert any("'sticker' skipped" in n for n in conv.notes)
    assert think.role == "assistant" and think.parts[0].kind == "thinking"
