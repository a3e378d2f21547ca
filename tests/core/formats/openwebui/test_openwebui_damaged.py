"""Damaged Open WebUI exports: repairs are noted, nothing crashes, nothing vanishes silently."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.formats import openwebui
from explorer.formats.base import FormatError, ImportedConversation


def message(key: str, parent: object, role: str = "user", content: object = "hi") -> dict[str, Any]:
    return {"id": key, "parentId": parent, "childrenIds": [], "role": role, "content": content}


def chat(messages: list[dict[str, Any]], current: str | None, title: str = "t") -> dict[str, Any]:
    history = {"currentId": current, "messages": {m["id"]: m for m in messages}}
    return {"id": title, "title": title, "chat": {"history": history}}


def read_text(tmp_path: Path, text: str) -> list[ImportedConversation]:
    path = tmp_path / "export.json"
    path.write_text(text)
    return list(openwebui.read(path))


def read_one(tmp_path: Path, item: dict[str, Any]) -> ImportedConversation:
    (only,) = read_text(tmp_path, json.dumps([item]))
    return only


def test_dangling_parent_becomes_a_root_with_a_note(tmp_path: Path) -> None:
    conv = read_one(tmp_path, chat([message("a", None), message("b", "gone")], "b"))
    assert {m.id: m.parent_id for m in conv.messages} == {"a": None, "b": None}
    assert any("'gone' is missing" in n for n in conv.notes)


def test_cycle_is_cut_with_a_note(tmp_path: Path) -> None:
    conv = read_one(tmp_path, chat([message("a", "b"), message("b", "a")], "b"))
    assert sum(1 for m in conv.messages if m.parent_id is None) == 1
    assert any("cycle" in n for n in conv.notes)


def test_duplicate_message_id_keeps_the_first_with_a_note(tmp_path: Path) -> None:
    first = json.dumps(message("a", None, content="first"))
    second = json.dumps(message("a", None, content="second"))
    history = f'{{"currentId": "a", "messages": {{"a": {first}, "a": {second}}}}}'
    (conv,) = read_text(tmp_path, f'[{{"title": "d", "chat": {{"history": {history}}}}}]')
    assert [m.text for m in conv.messages] == ["first"]
    assert conv.notes == ["message 'a' appears twice: kept the first"]


def test_children_ids_are_not_trusted(tmp_path: Path) -> None:
    a = message("a", None)
    a["childrenIds"] = ["ghost", "b"]
    conv = read_one(tmp_path, chat([a, message("b", "a", "assistant")], "b"))
    assert {m.id: m.parent_id for m in conv.messages} == {"a": None, "b": "a"}


def test_non_object_message_is_skipped_with_a_note(tmp_path: Path) -> None:
    item = chat([message("a", None)], "a")
    item["chat"]["history"]["messages"]["x"] = "not a message"
    conv = read_one(tmp_path, item)
    assert [m.id for m in conv.messages] == ["a"]
    assert conv.notes == ["message 'x' is not an object (str); skipped"]


def test_missing_current_id_falls_back_to_the_newest_leaf(tmp_path: Path) -> None:
    b, c = message("b", "a", "assistant"), message("c", "a", "assistant")
    b["timestamp"], c["timestamp"] = 20, 10
    conv = read_one(tmp_path, chat([message("a", None), b, c], None))
    assert conv.tip == "b"
    assert any("currentId None" in n for n in conv.notes)


def test_chat_without_history_is_skipped_with_a_note(tmp_path: Path) -> None:
    good = chat([message("a", None)], "a", title="good")
    convs = read_text(tmp_path, json.dumps([{"title": "bad", "chat": {}}, good, "str"]))
    assert [c.title for c in convs] == ["good"]
    assert any("chat #1" in n and "history" in n for n in convs[0].notes)
    assert any("chat #3" in n and "not an object (str)" in n for n in convs[0].notes)


def test_nothing_readable_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="nothing could be read"):
        read_text(tmp_path, '[{"title": "bad"}]')


def test_truncated_export_keeps_the_chats_before(tmp_path: Path) -> None:
    good = json.dumps(chat([message("a", None)], "a", title="good"))
    cut = json.dumps(chat([message("b", None)], "b", title="cut"))
    (conv,) = read_text(tmp_path, f"[{good}, {cut[:40]}")
    assert conv.title == "good"
    assert any("truncated" in n for n in conv.notes)


def test_bad_base64_image_is_kept_as_a_marker(tmp_path: Path) -> None:
    m = message("a", None)
    m["files"] = [{"type": "image", "url": "data:image/png;base64,%%%not base64"}]
    conv = read_one(tmp_path, chat([m], "a"))
    marker = conv.messages[0].parts[-1]
    assert marker.kind == "text" and marker.meta["missing_image"] and marker.meta["bad_base64"]


def test_wrong_types_do_not_crash(tmp_path: Path) -> None:
    m = message("b", 7, role="wizard", content=None)
    m.update(timestamp="noon", model=3, usage=[1], files="f", output="o")
    conv = read_one(tmp_path, chat([message("a", None), m], "b"))
    b = conv.messages[1]
    assert (b.role, b.parent_id, b.created_at, b.model, b.usage, b.parts) == (
        "assistant",
        None,
        None,
        None,
        None,
        [],
    )
    assert b.source_meta["source_role"] == "wizard"
    assert any("parentId 7" in n for n in conv.notes)


def test_unclosed_details_block_stays_text(tmp_path: Path) -> None:
    content = '<details type="reasoning"><summary>x</summary>never closed. Answer.'
    conv = read_one(tmp_path, chat([message("a", None, "assistant", content)], "a"))
    assert [(p.kind, p.text) for p in conv.messages[0].parts] == [("text", content)]


def mutate(value: Any, data: st.DataObject, depth: int = 0) -> Any:
    """Delete keys, change types, or descend: one random damage per level."""
    if isinstance(value, dict) and value and depth < 9:
        key = data.draw(st.sampled_from(sorted(value)))
        action = data.draw(st.sampled_from(["delete", "retype", "descend", "descend"]))
        if action == "delete":
            del value[key]
        elif action == "retype":
            value[key] = data.draw(st.sampled_from([None, 0, 2.5, "x", [], {}, [None], False]))
        else:
            value[key] = mutate(value[key], data, depth + 1)
    elif isinstance(value, list) and value and depth < 9:
        i = data.draw(st.integers(0, len(value) - 1))
        value[i] = mutate(value[i], data, depth + 1)
    return value


FIXTURE = Path(__file__).parent / "fixtures" / "details.json"


@pytest.mark.parametrize("source", ["sample", "fixture"])
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_fuzzed_exports_raise_nothing_but_format_error(
    source: str, corpus_dir: Path, tmp_path: Path, data: st.DataObject
) -> None:
    real = corpus_dir / "exports" / "openwebui" / "chat-export-1716802100.json"
    damaged = json.loads((real if source == "sample" else FIXTURE).read_text())
    for _ in range(data.draw(st.integers(1, 4))):
        damaged = mutate(copy.deepcopy(damaged), data)
    text = json.dumps(damaged)
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]
    path = tmp_path / "fuzzed.json"
    path.write_text(text)
    try:
        convs = list(openwebui.read(path))
    except FormatError:
        return
    for conv in convs:
        ids = [m.id for m in conv.messages]
        assert len(ids) == len(set(ids))
        assert conv.tip is None or conv.tip in ids
