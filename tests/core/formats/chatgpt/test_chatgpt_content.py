"""ChatGPT content types become the right parts (fixture: fixtures/tools.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.formats import chatgpt
from explorer.formats.base import ImportedConversation
from explorer.tree.model import Message
from explorer.tree.turns import pending_after

FIXTURE = Path(__file__).parent / "fixtures" / "tools.json"


@pytest.fixture(scope="module")
def conv() -> ImportedConversation:
    (only,) = list(chatgpt.read(FIXTURE))
    return only


def msg(conv: ImportedConversation, key: str) -> Message:
    (found,) = [m for m in conv.messages if m.id == key]
    return found


def test_message_less_root_is_left_out_and_the_tree_stays_connected(
    conv: ImportedConversation,
) -> None:
    assert "root" not in {m.id for m in conv.messages}
    assert [m.id for m in conv.messages if m.parent_id is None] == ["sys"]
    assert msg(conv, "ctx").parent_id == "sys"


def test_hidden_system_and_user_context_are_system_messages(conv: ImportedConversation) -> None:
    assert msg(conv, "sys").role == "system" and msg(conv, "sys").source_meta["hidden"]
    ctx = msg(conv, "ctx")
    assert ctx.role == "system"
    assert [p.text for p in ctx.parts] == ["Preferred name: Ada", "Be brief."]


def test_multimodal_parts_keep_their_order(conv: ImportedConversation) -> None:
    parts = msg(conv, "u1").parts
    assert [p.kind for p in parts] == ["text", "text", "text", "text"]  # no image files here
    assert parts[0].meta["missing_image"] and parts[2].meta["missing_image"]
    assert parts[1].text == "What is in this picture, and what is 2+2?"
    assert parts[3].text == "spoken words" and parts[3].meta["audio_transcription"]


def test_thoughts_and_reasoning_recap_are_thinking(conv: ImportedConversation) -> None:
    (thought,) = msg(conv, "a1").parts
    assert (thought.kind, thought.text, thought.meta["summary"]) == (
        "thinking",
        "I should run code.",
        "Plan",
    )
    (recap,) = msg(conv, "a2").parts
    assert recap.kind == "thinking" and recap.meta["recap"] is True


def test_code_to_a_tool_is_a_call_and_execution_output_its_result(
    conv: ImportedConversation,
) -> None:
    (call,) = msg(conv, "a3").parts
    assert call.kind == "tool_use" and call.tool_name == "python"
    assert json.loads(call.text) == {"code": "print(2 + 2)"}
    result_msg = msg(conv, "t1")
    (result,) = result_msg.parts
    assert result_msg.role == "tool" and result_msg.is_tool_result_only
    assert result.kind == "tool_result" and result.text == "4\n"
    assert result.tool_use_id == call.tool_use_id == "chatgpt-call-a3"


def test_json_tool_input_is_kept_as_arguments(conv: ImportedConversation) -> None:
    (call,) = msg(conv, "a6").parts
    assert call.tool_name == "dalle.text2im"
    assert json.loads(call.text) == {"prompt": "a cat", "size": "1024x1024"}


def test_every_result_after_a_call_answers_it_and_errors_are_marked(
    conv: ImportedConversation,
) -> None:
    first = msg(conv, "t2").parts[0]
    error = msg(conv, "t3").parts[0]
    assert first.tool_use_id == error.tool_use_id == "chatgpt-call-a6"
    assert error.is_error and error.text == "Rate limit reached"
    assert not first.is_error


def test_P1_path_to_the_tip_has_no_call_left_waiting(conv: ImportedConversation) -> None:
    by_id = {m.id: m for m in conv.messages}
    path = [by_id[conv.tip]]
    while path[-1].parent_id is not None:
        path.append(by_id[path[-1].parent_id])
    assert pending_after(path[::-1])[-1] == []


def test_unknown_content_type_is_kept_raw(conv: ImportedConversation) -> None:
    (part,) = msg(conv, "a5").parts
    assert part.kind == "text" and part.meta["unknown_content_type"] == "future_widget"
    assert json.loads(part.text)["widget"] == {"kind": "chart", "points": [1, 2]}


def test_in_progress_tip_marks_the_conversation_incomplete(conv: ImportedConversation) -> None:
    tip = msg(conv, "a7")
    assert conv.tip == "a7"
    assert tip.source_meta["in_progress"] and tip.source_meta["status"] == "in_progress"
    assert conv.incomplete


def test_model_slug_and_times(conv: ImportedConversation) -> None:
    assert msg(conv, "a1").model == "o3"
    assert msg(conv, "a6").model == "gpt-4o"
    assert msg(conv, "u2").model is None
    assert msg(conv, "u2").created_at == 1700000000.0 + 10
    assert conv.title == "Tools, images and thoughts"
    assert conv.source_id == "conv-tools"
    assert conv.meta["default_model_slug"] == "o3"


def test_branch_from_a_tool_result(conv: ImportedConversation) -> None:
    children = sorted(str(m.id) for m in conv.messages if m.parent_id == "t1")
    assert children == ["a4", "a5"]
