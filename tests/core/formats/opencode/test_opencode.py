"""OpenCode sessions: the recorded export, both storage layouts, damage and pending calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from explorer.formats import opencode
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.registry import detect
from tests.corpus import CORPUS

EXPORT = CORPUS / "opencode" / "home" / "exports" / "ses_dbc8ff872ffeyvhxgP6ldasoQM.json"
OLD_PROJECT = CORPUS / "authored" / "opencode" / "project"
OLD_STORAGE = OLD_PROJECT / "global" / "storage" / "session"


def one(path: Path) -> ImportedConversation:
    convs = list(opencode.read(path))
    assert len(convs) == 1
    return convs[0]


def test_exports_and_storage_folders_are_detected() -> None:
    assert detect(EXPORT) is opencode
    assert detect(OLD_STORAGE) is opencode
    assert detect(OLD_PROJECT) is opencode


def test_an_export_pairs_every_finished_call_with_its_result() -> None:
    conv = one(EXPORT)
    assert conv.source_id == "ses_dbc8ff872ffeyvhxgP6ldasoQM"
    assert conv.title == "Answer 1 to: Say hello and tell me what this folder is for."
    assert conv.meta["cwd"] == "/tmp/convo-corpus/opencode/work"
    assert conv.meta["version"] == "1.18.33"
    uses = {p.tool_use_id for m in conv.messages for p in m.tool_uses()}
    results = {p.tool_use_id for m in conv.messages for p in m.tool_results()}
    assert len(uses) == 4 and uses == results and not conv.incomplete
    for m in conv.messages:
        if m.role == "tool":
            parent = next(p for p in conv.messages if p.id == m.parent_id)
            assert {p.tool_use_id for p in m.parts} <= {p.tool_use_id for p in parent.parts}
    assert [p.tool_name for m in conv.messages for p in m.tool_uses()] == [
        "bash", "read", "write", "edit"]
    assert [m.text for m in conv.messages if m.role == "user"] == [
        "Say hello and tell me what this folder is for.",
        "Look around.\nTOOL:bash:ls -1\nTOOL:read:/tmp/convo-corpus/opencode/work/notes.txt",
        "Write and then edit a file.\nTOOL:write:/tmp/convo-corpus/opencode/work/todo.txt:"
        "buy milk\\nwalk dog\nTOOL:edit:/tmp/convo-corpus/opencode/work/todo.txt:"
        "buy milk=>buy oat milk"]
    first_answer = next(m for m in conv.messages if m.role == "assistant")
    assert first_answer.model == "fake-model" and first_answer.usage is not None
    assert conv.ignored_records == {"part:step-start": 7, "part:step-finish": 7}


def test_an_export_reads_as_the_database_it_came_from() -> None:
    exported = one(EXPORT)
    db = CORPUS / "opencode" / "home" / ".local" / "share" / "opencode" / "opencode.db"
    stored = next(c for c in opencode.read(db) if c.source_id == exported.source_id)
    assert [(m.id, m.parent_id, m.role, m.text) for m in exported.messages] == [
        (m.id, m.parent_id, m.role, m.text) for m in stored.messages]


def test_a_compaction_part_and_its_summary_become_a_record(tmp_path: Path) -> None:
    """The export rewritten as OpenCode writes a /compact: a user message holding a
    ``compaction`` part, then the assistant's summary (``summary: true``)."""
    value = json.loads(EXPORT.read_text())
    sid = value["info"]["id"]
    last = value["messages"][-1]["info"]
    ask = {"info": {"id": "msg_2437030000001CompactAsk0001", "sessionID": sid, "role": "user",
                    "time": {"created": last["time"]["created"] + 1000},
                    "agent": "build", "model": {"providerID": "localfake",
                                                "modelID": "fake-model"}},
           "parts": [{"id": "prt_2437030000001CompactPart001", "sessionID": sid,
                      "messageID": "msg_2437030000001CompactAsk0001", "type": "compaction",
                      "auto": False}]}
    summary = {"info": {**last, "id": "msg_2437031000001CompactSum0001",
                        "parentID": "msg_2437030000001CompactAsk0001", "summary": True,
                        "time": {"created": last["time"]["created"] + 2000,
                                 "completed": last["time"]["created"] + 2100}},
               "parts": [{"id": "prt_2437031000001CompactText001", "sessionID": sid,
                          "messageID": "msg_2437031000001CompactSum0001", "type": "text",
                          "text": "## Goal\nKeep a todo list in todo.txt."}]}
    value["messages"] += [ask, summary]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(value))
    conv = one(path)
    [record] = conv.compactions
    assert record.summary.startswith("## Goal")
    assert conv.context_start == "msg_2437031000001CompactSum0001"
    request = next(m for m in conv.messages if m.id == "msg_2437030000001CompactAsk0001")
    assert request.role == "system"  # asked by OpenCode, not typed by a person


def test_the_old_storage_layout_reads_one_session() -> None:
    conv = one(OLD_STORAGE)
    assert conv.source_id == "ses_0a1b2c3d4fffeAuthoredOld0001"
    assert conv.meta["version"] == "0.5.1"
    assert [m.role for m in conv.messages] == ["user", "assistant", "tool", "assistant"]
    failed = [m for m in conv.messages if "error" in m.source_meta]
    assert failed and failed[0].source_meta["error"]["name"] == "UnknownError"
    assert "<tool_call>" in conv.messages[-1].text  # kept as the model wrote it


def write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value))


def new_layout(root: Path) -> Path:
    storage = root / "storage"
    write(storage / "session" / "proj1" / "ses_1.json",
          {"id": "ses_1", "directory": "/home/me/app", "title": "Fix it", "version": "0.9.0"})
    write(storage / "message" / "ses_1" / "msg_1.json",
          {"id": "msg_1", "role": "user", "time": {"created": 1}})
    write(storage / "part" / "msg_1" / "prt_1.json", {"id": "prt_1", "type": "text", "text": "go"})
    write(storage / "message" / "ses_1" / "msg_2.json",
          {"id": "msg_2", "role": "assistant", "time": {"created": 2}, "parentID": "msg_1"})
    write(storage / "part" / "msg_2" / "prt_2.json", {"id": "prt_2", "type": "tool",
          "callID": "c1", "tool": "bash", "state": {"status": "completed", "output": "ok"}})
    write(storage / "part" / "msg_2" / "prt_3.json", {"id": "prt_3", "type": "text",
                                                      "text": "done"})
    write(storage / "part" / "msg_2" / "prt_4.json", {"id": "prt_4", "type": "tool",
          "callID": "c2", "tool": "bash", "state": {"status": "running", "input": {}}})
    write(storage / "part" / "msg_2" / "prt_5.json", "{broken")
    return root


def test_the_new_layout_splits_a_message_after_its_calls(tmp_path: Path) -> None:
    root = new_layout(tmp_path / "opencode")
    assert detect(root) is opencode
    conv = one(root)
    assert [m.id for m in conv.messages] == ["msg_1", "msg_2", "msg_2:r1", "msg_2:s1"]
    assert [m.role for m in conv.messages] == ["user", "assistant", "tool", "assistant"]
    assert conv.messages[3].text == "done" and conv.messages[3].tool_uses()[0].tool_use_id == "c2"
    assert conv.incomplete  # the running call still waits (P3)
    assert any("prt_5.json" in n and "unreadable" in n for n in conv.notes)


def test_an_export_that_is_not_one_is_a_format_error(tmp_path: Path) -> None:
    f = tmp_path / "session.json"
    write(f, {"info": {"id": "ses_9"}, "messages": {"not": "a list"}})
    with pytest.raises(FormatError, match="messages list"):
        list(opencode.read(f))
