"""Open WebUI exports: the corpus's export and the details blocks older versions write."""

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


EXPORT = Path("exports") / "openwebui" / "chat-export-1716802100.json"


@pytest.fixture(scope="module")
def sample(corpus_dir: Path) -> list[ImportedConversation]:
    return read_all(corpus_dir / EXPORT)


def test_sample_counts(sample: list[ImportedConversation]) -> None:
    assert [c.title for c in sample] == ["写真について", "Reading notes.txt", "Kopfrechnen"]
    assert [len(c.messages) for c in sample] == [4, 3, 2]
    assert [c.tip for c in sample] == ["p4", "t3", "k2"]
    assert [c.source_id for c in sample] == ["c41d7a88-photo", "9a3e51d0-tools",
                                             "5e0b9c44-reasoning"]
    assert all(c.notes == [] and c.source_format == "openwebui" for c in sample)
    assert [c.meta["models"] for c in sample] == [["llava:13b"], ["gpt-4.1-mini"],
                                                  ["qwen3:8b"]]
    assert [c.meta["pinned"] for c in sample] == [True, False, False]


def test_sample_reasoning_comes_from_output(sample: list[ImportedConversation]) -> None:
    answer = msg(sample[2], "k2")
    assert kinds(answer) == ["thinking", "text"]
    assert answer.parts[0].text == "23 * 19 = 23 * 20 - 23 = 460 - 23 = 437"
    assert answer.parts[0].meta == {"duration": 4}
    assert answer.text == "437"
    assert answer.model == "qwen3:8b" and answer.source_meta["parts_from"] == "output"
    assert answer.parent_id == "k1" and answer.created_at == 1716800010.0
    assert answer.usage is not None
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (18, 61)


def test_sample_regenerated_answers_each_call_a_tool(sample: list[ImportedConversation]) -> None:
    conv = sample[1]
    assert [m.id for m in conv.messages if m.parent_id == "t1"] == ["t2", "t3"]
    first, again = msg(conv, "t2"), msg(conv, "t3")
    assert kinds(first) == kinds(again) == ["tool_use", "tool_result", "text"]
    call, result, text = first.parts
    assert (call.tool_name, call.tool_use_id, json.loads(call.text)) == (
        "read_file", "call_read_7Qx", {"path": "notes.txt"})
    assert (result.tool_use_id, result.text, result.tool_name) == (
        "call_read_7Qx", "milk\neggs\nflour", "read_file")
    assert text.text == "The file lists three things to buy: milk, eggs and flour."
    call, result, text = again.parts
    assert (call.tool_name, json.loads(call.text)) == ("run_bash", {"command": "wc -l notes.txt"})
    assert (result.tool_use_id, result.text) == ("call_bash_9Kd", "3 notes.txt")
    assert again.created_at == 1716801090.0  # written in milliseconds
    assert first.usage is not None and again.usage is not None
    assert (first.usage.input_tokens, again.usage.output_tokens) == (140, 29)


def test_sample_image_file_list_and_unfinished_answer(
        sample: list[ImportedConversation]) -> None:
    conv = sample[0]
    assert [(m.role, m.text) for m in conv.messages] == [
        ("user", "この写真に何が写っていますか？"),
        ("assistant", "オレンジ色の四角形が二つ並んでいます。"),
        ("user", "ありがとう！"),
        ("assistant", "どういたしまして"),
    ]
    question = msg(conv, "p1")
    assert kinds(question) == ["text", "image"]
    assert question.parts[1].media_type == "image/png"
    assert question.parts[1].data is not None and question.parts[1].data[:4] == b"\x89PNG"
    assert question.source_meta["files"] == [{"type": "file", "name": "menu.pdf",
                                              "id": "f-2c9e", "url": "/api/v1/files/f-2c9e",
                                              "size": 20480}]
    assert msg(conv, "p4").source_meta["in_progress"] is True
    assert "in_progress" not in msg(conv, "p2").source_meta
    assert conv.created_at == 1716802000.0


def test_sample_without_output_falls_back_to_details_blocks(
    corpus_dir: Path, tmp_path: Path
) -> None:
    chats = json.loads((corpus_dir / EXPORT).read_text())
    for chat in chats:
        for m in chat["chat"]["history"]["messages"].values():
            m.pop("output", None)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(chats))
    _, tool, reasoning = read_all(path)
    thought, answer = msg(reasoning, "k2").parts
    assert (thought.kind, thought.text, answer.text) == (
        "thinking",
        "23 * 19 = 23 * 20 - 23 = 460 - 23 = 437",
        "437",
    )
    assert thought.meta == {"duration": "4", "done": "true"}
    for key, name, args, out in (
        ("t2", "read_file", {"path": "notes.txt"}, "milk\neggs\nflour"),
        ("t3", "run_bash", {"command": "wc -l notes.txt"}, "3 notes.txt"),
    ):
        call, result, text = msg(tool, key).parts
        assert (call.kind, call.tool_name, json.loads(call.text)) == ("tool_use", name, args)
        assert "name_missing" not in call.meta
        assert result.kind == "tool_result" and result.text == out
        assert result.tool_use_id == call.tool_use_id
    assert text.text == "notes.txt has 3 lines: a short shopping list."


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


def test_sniff_accepts_the_sample_and_rejects_others(corpus_dir: Path, tmp_path: Path) -> None:
    text = tmp_path / "random.txt"
    text.write_text("history is written by the victors; currentId unknown\n")
    assert openwebui.sniff(corpus_dir / EXPORT)
    assert openwebui.sniff(FIXTURE)
    exports = corpus_dir / "exports"
    for other in ("chatgpt/branching.json", "chatgpt/single-conversation.json",
                  "librechat/librechat-tree.json", "claude_ai/conversations.json"):
        assert not openwebui.sniff(exports / other), other
    for session in sorted((corpus_dir / "codex").rglob("*.jsonl")):
        assert not openwebui.sniff(session)
    assert not openwebui.sniff(text)
    assert not openwebui.sniff(tmp_path)


def test_one_chat_object_is_read(corpus_dir: Path, tmp_path: Path) -> None:
    chats = json.loads((corpus_dir / EXPORT).read_text())
    path = tmp_path / "chat.txt"
    path.write_text(json.dumps(chats[2]))
    assert openwebui.sniff(path)
    (conv,) = read_all(path)
    assert conv.title == "Kopfrechnen" and conv.tip == "k2"
