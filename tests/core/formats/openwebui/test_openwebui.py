"""Open WebUI exports: the real sample and the details blocks older versions write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.formats import openwebui
from explorer.formats.base import ImportedConversation
from explorer.tree.model import Message

FIXTURE = Path(__file__).parent / "fixtures" / "details.json"


def read_all(path: Path) -> list[ImportedConversation]:
    return list(openwebui.read(path))


def msg(conv: ImportedConversation, key: str) -> Message:
    (found,) = [m for m in conv.messages if m.id == key]
    return found


def kinds(m: Message) -> list[str]:
    return [p.kind for p in m.parts]


@pytest.fixture(scope="module")
def sample(samples_dir: Path) -> list[ImportedConversation]:
    return read_all(samples_dir / "openwebui" / "openwebui-export.json")


def test_sample_counts(sample: list[ImportedConversation]) -> None:
    assert [c.title for c in sample] == [
        "Chat with reasoning",
        "Chat with tool call",
        "Simple linear chat",
    ]
    assert [len(c.messages) for c in sample] == [2, 2, 2]
    assert [c.tip for c in sample] == ["ra2", "ta2", "sa2"]
    assert [c.source_id for c in sample] == ["reasoning-chat", "tool-chat", "simple-chat"]
    assert all(c.notes == [] and c.source_format == "openwebui" for c in sample)


def test_sample_reasoning_comes_from_output(sample: list[ImportedConversation]) -> None:
    answer = msg(sample[0], "ra2")
    assert kinds(answer) == ["thinking", "text"]
    assert answer.parts[0].text == "15 * 17 = 15 * 10 + 15 * 7 = 150 + 105 = 255"
    assert answer.text == "255"
    assert answer.model == "deepseek-r1"
    assert answer.parent_id == "ra1" and answer.created_at == 1700000010.0


def test_sample_function_call_and_output(sample: list[ImportedConversation]) -> None:
    answer = msg(sample[1], "ta2")
    assert kinds(answer) == ["tool_use", "tool_result", "text"]
    call, result, text = answer.parts
    assert (call.tool_name, call.tool_use_id, json.loads(call.text)) == (
        "get_weather",
        "call_1",
        {"city": "Paris"},
    )
    assert (result.tool_use_id, result.text, result.tool_name) == (
        "call_1",
        "Paris: 18C, rain",
        "get_weather",
    )
    assert text.text == "The weather in Paris is 18C with rain."


def test_sample_plain_chat(sample: list[ImportedConversation]) -> None:
    conv = sample[2]
    assert [(m.role, m.text) for m in conv.messages] == [
        ("user", "Hello"),
        ("assistant", "Hi there!"),
    ]
    assert conv.created_at == 1700002000.0


def test_sample_without_output_falls_back_to_details_blocks(
    samples_dir: Path, tmp_path: Path
) -> None:
    chats = json.loads((samples_dir / "openwebui" / "openwebui-export.json").read_text())
    for chat in chats:
        for m in chat["chat"]["history"]["messages"].values():
            m.pop("output", None)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(chats))
    reasoning, tool, _ = read_all(path)
    thought, answer = msg(reasoning, "ra2").parts
    assert (thought.kind, thought.text, answer.text) == (
        "thinking",
        "Let me break this down...",
        "255",
    )
    call, result, text = msg(tool, "ta2").parts
    assert call.kind == "tool_use" and call.meta["name_missing"]
    assert result.kind == "tool_result" and result.text == "Paris: 18C, rain"
    assert result.tool_use_id == call.tool_use_id
    assert text.text == "The weather in Paris is 18C with rain."


@pytest.fixture(scope="module")
def details() -> ImportedConversation:
    (conv,) = read_all(FIXTURE)
    return conv


def test_details_blocks_become_parts_in_order(details: ImportedConversation) -> None:
    assert kinds(msg(details, "m2")) == [
        "thinking",
        "text",
        "tool_use",
        "tool_result",
        "tool_use",
        "tool_result",
        "text",
        "text",
    ]


def test_reasoning_block_is_unquoted_thinking(details: ImportedConversation) -> None:
    thought = msg(details, "m2").parts[0]
    assert thought.text == "step one\nstep two"
    assert thought.meta["duration"] == "2"


def test_tool_call_attributes_are_unescaped(details: ImportedConversation) -> None:
    call, result = msg(details, "m2").parts[2:4]
    assert (call.tool_name, call.tool_use_id) == ("get_weather", "call_7")
    assert json.loads(call.text) == {"city": "Paris"}
    assert (result.tool_use_id, result.text) == ("call_7", "Paris: 18C, rain")


def test_code_interpreter_block_is_a_call_with_its_output(details: ImportedConversation) -> None:
    call, result = msg(details, "m2").parts[4:6]
    assert call.tool_name == "code_interpreter"
    assert json.loads(call.text) == {"code": "print(2 + 2)"}
    assert json.loads(result.text) == {"stdout": "4"}
    assert result.tool_use_id == call.tool_use_id


def test_unknown_details_block_is_kept_as_text(details: ImportedConversation) -> None:
    unknown, last = msg(details, "m2").parts[6:]
    assert unknown.meta["details_type"] == "custom_widget"
    assert "payload" in unknown.text
    assert last.text == "It is 18C and raining."


def test_inline_images_become_image_parts(details: ImportedConversation) -> None:
    question = msg(details, "m1")
    assert kinds(question) == ["text", "image", "text"]
    image = question.parts[1]
    assert image.media_type == "image/png" and image.data == b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    assert question.parts[2].meta["missing_image"]
    assert question.source_meta["files"] == [
        {"type": "file", "name": "notes.pdf", "id": "f-1", "url": "/api/v1/files/f-1", "size": 1234}
    ]


def test_regenerated_answer_is_a_sibling_and_the_tip(details: ImportedConversation) -> None:
    assert details.tip == "m2b"
    assert sorted(str(m.id) for m in details.messages if m.parent_id == "m1") == ["m2", "m2b"]


def test_millisecond_timestamps_usage_and_unfinished_answers(details: ImportedConversation) -> None:
    regen = msg(details, "m2b")
    assert regen.created_at == 1700000020.0
    assert regen.usage is not None and (regen.usage.input_tokens, regen.usage.output_tokens) == (
        7,
        9,
    )
    assert regen.source_meta["in_progress"] is True
    first = msg(details, "m2")
    assert first.usage is not None and first.usage.output_tokens == 20
    assert details.meta["pinned"] is True and details.meta["models"] == ["gpt-4o"]


def test_sniff_accepts_the_sample_and_rejects_others(samples_dir: Path, tmp_path: Path) -> None:
    text = tmp_path / "random.txt"
    text.write_text("history is written by the victors; currentId unknown\n")
    assert openwebui.sniff(samples_dir / "openwebui" / "openwebui-export.json")
    assert openwebui.sniff(FIXTURE)
    assert not openwebui.sniff(samples_dir / "claude_code" / "short.jsonl")
    assert not openwebui.sniff(samples_dir / "chatgpt" / "chatgpt-tree.json")
    assert not openwebui.sniff(text)
    assert not openwebui.sniff(tmp_path)


def test_one_chat_object_is_read(samples_dir: Path, tmp_path: Path) -> None:
    chats = json.loads((samples_dir / "openwebui" / "openwebui-export.json").read_text())
    path = tmp_path / "chat.txt"
    path.write_text(json.dumps(chats[2]))
    assert openwebui.sniff(path)
    (conv,) = read_all(path)
    assert conv.title == "Simple linear chat" and conv.tip == "sa2"
