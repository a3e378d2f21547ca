"""pi v3 session export, read back through the pi importer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from explorer.app.importing.demo import load_demo
from explorer.formats import pi
from explorer.formats.exporters.pi import lines
from explorer.formats.exporters.steps import INTERRUPTED, active_path
from explorer.store import Store
from explorer.tree.model import Message, Part, text_message


def _demo(tmp_path: Path) -> tuple[dict[str, Any], list[Message]]:
    store = Store(tmp_path / "demo.db")
    cid = load_demo(store)
    conv = store.conversation(cid)
    header = {"title": conv.title, "source_id": conv.source_id, "created_at": conv.created_at}
    path = store.path(cid, conv.tip_id)
    store.close()
    return header, path


def _write(tmp_path: Path, out: list[str]) -> Path:
    file = tmp_path / "session.jsonl"
    file.write_text("\n".join(out) + "\n", encoding="utf-8")
    return file


def _shape(path: list[Message]) -> list[tuple[str, list[str], list[tuple[str | None, str]]]]:
    """Roles (a message of tool results counts as ``tool``), texts and tool parts."""
    return [
        ("tool" if m.is_tool_result_only else m.role,
         [p.text for p in m.parts if p.kind == "text"],
         [(p.tool_use_id, p.kind) for p in m.parts if p.kind in ("tool_use", "tool_result")])
        for m in path
    ]


def test_demo_round_trips_through_the_pi_importer(tmp_path: Path) -> None:
    header, path = _demo(tmp_path)
    notes: list[str] = []
    out = list(lines(header, path, path[-1].id, notes))
    conv = next(pi.read(_write(tmp_path, out)))
    back = active_path(conv.messages, conv.tip)
    sent = [m for m in path if m.role != "system"]
    assert _shape(back) == _shape(sent)
    assert [p.text for m in back for p in m.parts if p.kind == "thinking"] == \
           [p.text for m in sent for p in m.parts if p.kind == "thinking"]
    assert [p.data for m in back for p in m.parts if p.kind == "image"] == \
           [p.data for m in sent for p in m.parts if p.kind == "image"]
    assert [m.model for m in back] == [m.model for m in sent]
    assert len(conv.messages) == len(back) and conv.notes == []
    assert any("system message left out" in n for n in notes)


def test_header_and_entries_follow_version_3(tmp_path: Path) -> None:
    header, path = _demo(tmp_path)
    records = [json.loads(line) for line in lines(header, path, path[-1].id)]
    head, entries = records[0], records[1:]
    assert head["type"] == "session" and head["version"] == 3
    assert isinstance(head["id"], str) and head["timestamp"].endswith("Z") and head["cwd"]
    assert entries[0]["parentId"] is None
    assert [e["parentId"] for e in entries[1:]] == [e["id"] for e in entries[:-1]]
    assert entries[0]["type"] == "session_info" and entries[0]["name"] == header["title"]
    messages = entries[1:]
    assert {e["type"] for e in messages} == {"message"}
    roles = {e["message"]["role"] for e in messages}
    assert roles == {"user", "assistant", "toolResult"}
    kinds = {b["type"] for e in messages if isinstance(e["message"]["content"], list)
             for b in e["message"]["content"]}
    assert {"text", "thinking", "toolCall", "image"} <= kinds


def test_parallel_results_become_one_tool_result_entry_each(tmp_path: Path) -> None:
    path = [
        text_message(1, None, "user", "look"),
        Message(2, 1, "assistant", [
            Part("tool_use", "{}", tool_name="read", tool_use_id="c1"),
            Part("tool_use", "{}", tool_name="bash", tool_use_id="c2")]),
        Message(3, 2, "user", [Part("tool_result", "one", tool_use_id="c1")]),
    ]
    notes: list[str] = []
    records = [json.loads(line) for line in lines({}, path, 3, notes)]
    results = [e["message"] for e in records[1:] if e["message"]["role"] == "toolResult"]
    assert [(r["toolCallId"], r["toolName"], r["isError"]) for r in results] == [
        ("c1", "read", False), ("c2", "bash", True)]
    assert results[1]["content"] == [{"type": "text", "text": INTERRUPTED}]
    assert any("c2 has no result" in n for n in notes)
    conv = next(pi.read(_write(tmp_path, [json.dumps(r) for r in records])))
    assert [m.role for m in active_path(conv.messages, conv.tip)] == [
        "user", "assistant", "tool", "tool"]
