"""Damaged ChatGPT exports: every repair is noted, nothing crashes, nothing vanishes silently."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.formats import chatgpt
from explorer.formats.base import FormatError, ImportedConversation


def node(key: str, parent: str | None, role: str = "user", text: str = "hi") -> dict[str, Any]:
    message = {
        "id": key,
        "author": {"role": role},
        "content": {"content_type": "text", "parts": [text]},
        "create_time": 1.0,
    }
    return {"id": key, "message": message, "parent": parent, "children": []}


def conversation(
    nodes: list[dict[str, Any]], current: str | None, title: str = "t"
) -> dict[str, Any]:
    return {"title": title, "mapping": {n["id"]: n for n in nodes}, "current_node": current}


def read_text(tmp_path: Path, text: str) -> list[ImportedConversation]:
    path = tmp_path / "conversations.json"
    path.write_text(text)
    return list(chatgpt.read(path))


def read_one(tmp_path: Path, conv: dict[str, Any]) -> ImportedConversation:
    (only,) = read_text(tmp_path, json.dumps([conv]))
    return only


def test_dangling_parent_becomes_a_root_with_a_note(tmp_path: Path) -> None:
    conv = read_one(tmp_path, conversation([node("a", None), node("b", "gone")], "b"))
    assert {m.id: m.parent_id for m in conv.messages} == {"a": None, "b": None}
    assert any("'gone' is missing" in n for n in conv.notes)


def test_cycle_is_cut_with_a_note(tmp_path: Path) -> None:
    nodes = [node("a", None), node("b", "c"), node("c", "b")]
    conv = read_one(tmp_path, conversation(nodes, "c"))
    parents = {m.id: m.parent_id for m in conv.messages}
    assert sum(1 for p in parents.values() if p is None) == 2
    assert any("cycle" in n for n in conv.notes)


def test_duplicate_node_keeps_the_first_with_a_note(tmp_path: Path) -> None:
    first = json.dumps(node("a", None, text="first"))
    second = json.dumps(node("a", None, text="second"))
    text = f'[{{"title": "d", "current_node": "a", "mapping": {{"a": {first}, "a": {second}}}}}]'
    (conv,) = read_text(tmp_path, text)
    assert [m.text for m in conv.messages] == ["first"]
    assert conv.notes == ["node 'a' appears twice in 'mapping': kept the first"]


def test_message_less_middle_node_is_bridged(tmp_path: Path) -> None:
    hollow = {"id": "h", "message": None, "parent": "a", "children": ["b"]}
    conv = read_one(tmp_path, conversation([node("a", None), hollow, node("b", "h")], "b"))
    assert {m.id: m.parent_id for m in conv.messages} == {"a": None, "b": "a"}


def test_children_lists_are_not_trusted(tmp_path: Path) -> None:
    a, b = node("a", None), node("b", "a")
    a["children"] = ["nonexistent"]
    conv = read_one(tmp_path, conversation([a, b], "b"))
    assert {m.id: m.parent_id for m in conv.messages} == {"a": None, "b": "a"}


def test_non_object_node_and_message_are_skipped_with_notes(tmp_path: Path) -> None:
    broken = node("c", "a")
    broken["message"] = "oops"
    conv = conversation([node("a", None), broken], "a")
    conv["mapping"]["z"] = [1, 2]
    got = read_one(tmp_path, conv)
    assert [m.id for m in got.messages] == ["a"]
    assert any("'z' is not an object" in n for n in got.notes)
    assert any("'c': message is not an object" in n for n in got.notes)


def test_missing_current_node_falls_back_to_the_newest_leaf(tmp_path: Path) -> None:
    old, new = node("b", "a"), node("c", "a")
    old["message"]["create_time"], new["message"]["create_time"] = 5.0, 9.0
    conv = read_one(tmp_path, conversation([node("a", None), new, old], "nope"))
    assert conv.tip == "c"
    assert any("current_node 'nope'" in n for n in conv.notes)


def test_current_node_on_a_message_less_node_uses_its_real_ancestor(tmp_path: Path) -> None:
    hollow = {"id": "h", "message": None, "parent": "a"}
    conv = read_one(tmp_path, conversation([node("a", None), hollow], "h"))
    assert conv.tip == "a" and conv.notes == []


def test_orphan_tool_output_is_kept_as_text_with_a_note(tmp_path: Path) -> None:
    tool = node("t", "a", role="tool", text="output")
    conv = read_one(tmp_path, conversation([node("a", None), tool], "t"))
    (part,) = conv.messages[1].parts
    assert part.kind == "text" and part.meta["orphan_tool_output"]
    assert any("no call before them" in n for n in conv.notes)


def test_conversation_without_mapping_is_skipped_with_a_note_on_its_neighbour(
    tmp_path: Path,
) -> None:
    good = conversation([node("a", None)], "a", title="good")
    convs = read_text(tmp_path, json.dumps([{"title": "bad"}, good, 42]))
    assert [c.title for c in convs] == ["good"]
    assert any("#1" in n and "no 'mapping'" in n for n in convs[0].notes)
    assert any("#3" in n and "not an object (int)" in n for n in convs[0].notes)


def test_nothing_readable_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="nothing could be read"):
        read_text(tmp_path, '[{"title": "no mapping"}]')


def test_truncated_export_keeps_what_came_before(tmp_path: Path) -> None:
    good = json.dumps(conversation([node("a", None)], "a", title="good"))
    second = json.dumps(conversation([node("b", None)], "b", title="cut"))
    (conv,) = read_text(tmp_path, f"[{good}, {second[: len(second) // 2]}")
    assert conv.title == "good"
    assert any("#2" in n and "truncated" in n for n in conv.notes)


def test_malformed_conversation_in_the_middle_is_skipped(tmp_path: Path) -> None:
    one = json.dumps(conversation([node("a", None)], "a", title="one"))
    two = json.dumps(conversation([node("b", None)], "b", title="two"))
    convs = read_text(tmp_path, f'[{one}, {{"title": "x" "mapping": {{}}}}, {two}]')
    assert [c.title for c in convs] == ["one", "two"]
    assert any("#2" in n and "invalid JSON" in n for n in convs[1].notes)


def test_wrong_types_inside_a_message_do_not_crash(tmp_path: Path) -> None:
    weird = node("b", "a")
    weird["message"]["content"] = {"content_type": "text", "parts": [None, 3, "ok"]}
    weird["message"]["author"] = "nobody"
    weird["message"]["create_time"] = "yesterday"
    weird["message"]["update_time"] = 10**400
    conv = conversation([node("a", None), weird], "b")
    conv["create_time"] = 10**400
    got = read_one(tmp_path, conv)
    assert got.created_at is None
    b = got.messages[1]
    assert b.role == "assistant" and b.created_at is None
    assert "ok" in [p.text for p in b.parts]


def mutate(value: Any, data: st.DataObject, depth: int = 0) -> Any:
    """Delete keys, change types, or descend: one random damage per level."""
    if isinstance(value, dict) and value and depth < 8:
        key = data.draw(st.sampled_from(sorted(value)))
        action = data.draw(st.sampled_from(["delete", "retype", "descend", "descend"]))
        if action == "delete":
            del value[key]
        elif action == "retype":
            value[key] = data.draw(st.sampled_from([None, 0, -1.5, "x", [], {}, [None], True]))
        else:
            value[key] = mutate(value[key], data, depth + 1)
    elif isinstance(value, list) and value and depth < 8:
        i = data.draw(st.integers(0, len(value) - 1))
        value[i] = mutate(value[i], data, depth + 1)
    return value


@pytest.mark.parametrize("sample", ["branching.json", "single-conversation.json"])
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_fuzzed_samples_raise_nothing_but_format_error(
    sample: str, corpus_dir: Path, tmp_path: Path, data: st.DataObject
) -> None:
    original = json.loads((corpus_dir / "exports" / "chatgpt" / sample).read_text())
    damaged = original
    for _ in range(data.draw(st.integers(1, 4))):
        damaged = mutate(copy.deepcopy(damaged), data)
    text = json.dumps(damaged)
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]
    path = tmp_path / "fuzzed.json"
    path.write_text(text)
    try:
        convs = list(chatgpt.read(path))
    except FormatError:
        return
    for conv in convs:
        ids = [m.id for m in conv.messages]
        assert len(ids) == len(set(ids))
        assert conv.tip is None or conv.tip in ids
