"""LibreChat exports: the corpus's nested tree, a flat export with content parts, repairs, fuzz."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from core.formats.pi.test_pi_fuzz import mutate_value
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.formats import librechat
from explorer.formats.base import FormatError, ImportedConversation
from explorer.tree.paths import children_map, message_path

ZERO = librechat.NO_PARENT
SAMPLE = Path("exports") / "librechat" / "librechat-tree.json"


def _one(path: Path) -> ImportedConversation:
    convs = list(librechat.read(path))
    assert len(convs) == 1
    return convs[0]


def _write(tmp_path: Path, data: Any, name: str = "export.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_sample_nested_tree_counts(corpus_dir: Path) -> None:
    conv = _one(corpus_dir / SAMPLE)
    assert len(conv.messages) == 9
    kids = children_map(conv.messages)
    branch_points = sorted(str(k)[:8] for k, v in kids.items() if k is not None and len(v) > 1)
    assert branch_points == ["00000002", "00000003"]  # two follow-ups; a regenerated reply
    assert len(kids[None]) == 1  # the all-zero parent is no parent
    assert [m.role for m in conv.messages].count("user") == 4
    assert conv.title == "Undoing a Git commit"
    assert conv.source_id == "3f9d8a62-5b1e-4c77-9e0a-2d6c81f4b0aa"
    assert conv.meta["endpoint"] == "openAI" and conv.meta["options"]["model"] == "gpt-4o"
    assert conv.created_at == pytest.approx(1725351339.861)  # 2024-09-03T08:15:39.861Z
    assert conv.notes == [] and not conv.ignored_records


def test_sample_tip_is_the_last_leaf_when_leaves_are_undated(corpus_dir: Path) -> None:
    conv = _one(corpus_dir / SAMPLE)
    assert conv.tip == "00000009-6c1d-4e2f-9a3b-000000011667"
    path = message_path({m.id: m for m in conv.messages}, conv.tip)
    assert [m.text.split("\n")[0][:20] for m in path] == [
        "How do I undo my las", "It sounds like you w", "why is it called HEA",
        "HEAD is Git's name f"]
    assert path[1].model == "gpt-4o" and path[1].source_meta["sender"] == "Git Helper"
    assert "```bash\ngit reset --soft HEAD~1\n```" in path[1].text
    assert path[1].usage is not None and path[1].usage.output_tokens == 96
    assert path[3].usage is not None and path[3].usage.input_tokens == 205
    assert path[0].usage is None and path[2].created_at is None
    assert conv.incomplete is False


def _m(mid: str, parent: str, user: bool, text: str = "", **kw: Any) -> dict[str, Any]:
    return {"messageId": mid, "parentMessageId": parent, "isCreatedByUser": user,
            "sender": "User" if user else "GPT", "text": text, **kw}


FLAT = {
    "conversationId": "conv-1", "title": "Flat", "endpoint": "agents",
    "messages": [
        _m("u1", ZERO, True, "question", createdAt="2024-01-01T00:00:00Z"),
        _m("a1", "u1", False, content=[
            {"type": "think", "think": {"value": "pondering"}},
            {"type": "tool_call", "tool_call": {"id": "c1", "name": "search",
                                                "args": "{\"q\": 1}", "output": "found"}},
            {"type": "text", "text": {"value": "answer one"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}},
            {"type": "hologram"},
        ], createdAt="2024-01-01T00:00:01Z", model="gpt-x", tokenCount=9),
        _m("a2", "u1", False, "answer two", createdAt="2024-01-01T00:00:05Z", unfinished=True),
    ],
}


def test_flat_export_parts_and_newest_dated_leaf(tmp_path: Path) -> None:
    conv = _one(_write(tmp_path, FLAT))
    msgs = {m.id: m for m in conv.messages}
    assert [p.kind for p in msgs["a1"].parts] == ["thinking", "tool_use", "tool_result", "text",
                                                  "image"]
    assert msgs["a1"].parts[2].tool_use_id == "c1" and msgs["a1"].parts[2].text == "found"
    assert msgs["a1"].parts[4].data == b"hi"
    assert msgs["a1"].usage is not None and msgs["a1"].usage.output_tokens == 9
    assert conv.ignored_records == {"content:hologram": 1}
    assert conv.tip == "a2"  # the newest leaf
    assert conv.incomplete is True  # LibreChat marked it unfinished


def test_flat_export_repairs(tmp_path: Path) -> None:
    data = {"conversationId": "c", "messages": [
        _m("u1", ZERO, True, "q"), _m("u1", ZERO, True, "dup"), _m("a1", "gone", False, "x"),
        _m("p", "q", True, "p"), _m("q", "p", False, "q"), "junk",
    ]}
    conv = _one(_write(tmp_path, data))
    notes = " ".join(conv.notes)
    assert "duplicate" in notes and "missing" in notes and "cycle" in notes
    assert "message #5: not an object" in notes
    assert [m.text for m in conv.messages if m.id == "u1"] == ["q"]
    assert {m.id for m in conv.messages if m.parent_id is None} >= {"u1", "a1"}


def test_not_an_export_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError):
        list(librechat.read(_write(tmp_path, {"conversationId": "x"})))
    bad = tmp_path / "bad.json"
    bad.write_text('{"conversationId": "x", "messages": [')
    with pytest.raises(FormatError):
        list(librechat.read(bad))


def test_sniff(corpus_dir: Path, tmp_path: Path) -> None:
    assert librechat.sniff(corpus_dir / SAMPLE)
    assert librechat.sniff(_write(tmp_path, FLAT))
    others = [p for p in sorted((corpus_dir / "exports").rglob("*"))
              if p.is_file() and p.parent.name != "librechat"]
    others += sorted((corpus_dir / "codex").rglob("*.jsonl"))
    assert len(others) >= 9
    for path in others:
        assert not librechat.sniff(path), path
    text = tmp_path / "t.txt"
    text.write_text("conversationId messages")
    assert not librechat.sniff(text)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_sample_reads_or_raises_format_error(
    data: st.DataObject, corpus_dir: Path, tmp_path: Path
) -> None:
    sample = json.loads((corpus_dir / SAMPLE).read_text())
    for _ in range(data.draw(st.integers(1, 4))):
        sample = mutate_value(data, sample)
    text = json.dumps(sample)
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]
    path = tmp_path / "m.json"
    path.write_text(text)
    try:
        convs = list(librechat.read(path))
    except FormatError:
        return
    for conv in convs:
        assert conv.tip is None or conv.tip in {m.id for m in conv.messages}
