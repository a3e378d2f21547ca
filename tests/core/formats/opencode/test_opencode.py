"""OpenCode sessions: the export samples, both storage layouts, damage and pending calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from explorer.formats import opencode
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.registry import detect

SAILOR = "opencode/session__curious-sailor__ses_39b7f9e89ffe7J0WzLzYrUt4eW.json"
EAGLE = "opencode/session__jolly-eagle__ses_39b5d713cffeRgAoxPIwS3Plus.json"
OLD_STORAGE = "opencode/project/global/storage/session"


def one(path: Path) -> ImportedConversation:
    convs = list(opencode.read(path))
    assert len(convs) == 1
    return convs[0]


def test_exports_and_storage_folders_are_detected(samples_dir: Path) -> None:
    assert detect(samples_dir / SAILOR) is opencode
    assert detect(samples_dir / OLD_STORAGE) is opencode
    assert detect(samples_dir / "opencode" / "project") is opencode


def test_an_export_pairs_every_finished_call_with_its_result(samples_dir: Path) -> None:
    conv = one(samples_dir / EAGLE)
    assert conv.source_id == "ses_39b5d713cffeRgAoxPIwS3Plus"
    assert conv.title == "Gitter-commit workflow summary for repository commits"
    assert conv.meta["cwd"] == "/Users/alex/repos/vfp/dark-factory"
    assert conv.meta["version"] == "1.2.5"
    uses = {p.tool_use_id for m in conv.messages for p in m.tool_uses()}
    results = {p.tool_use_id for m in conv.messages for p in m.tool_results()}
    assert uses and uses == results and not conv.incomplete
    for m in conv.messages:
        if m.role == "tool":
            parent = next(p for p in conv.messages if p.id == m.parent_id)
            assert {p.tool_use_id for p in m.parts} <= {p.tool_use_id for p in parent.parts}
    assert {p.tool_name for m in conv.messages for p in m.tool_uses()} >= {"skill", "task"}
    first_answer = next(m for m in conv.messages if m.role == "assistant")
    assert first_answer.model == "gpt-5.3-codex" and first_answer.usage is not None


def test_a_compaction_part_and_its_summary_become_a_record(samples_dir: Path) -> None:
    conv = one(samples_dir / SAILOR)
    assert len(conv.compactions) == 1
    record = conv.compactions[0]
    assert record.summary.startswith("## Goal")
    assert conv.context_start == "msg_c648e17ec0017ewG6GOaVULORx"
    request = next(m for m in conv.messages if m.id == "msg_c648e17e6001YM54MG29gGQBfQ")
    assert request.role == "system"  # asked by OpenCode, not typed by a person
    assert conv.ignored_records["part:patch"] == 13


def test_the_old_storage_layout_reads_one_session(samples_dir: Path) -> None:
    conv = one(samples_dir / OLD_STORAGE)
    assert conv.source_id == "ses_75395a01fffemkGUhZwyQ4ECvG"
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
