"""ChatGPT content whose body is in ``parts`` instead of the type's own field
(fixture: fixtures/parts_bodies.json): nothing imports empty or without a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.formats import chatgpt
from explorer.formats.base import ImportedConversation
from explorer.tree.model import Message

FIXTURE = Path(__file__).parent / "fixtures" / "parts_bodies.json"


@pytest.fixture(scope="module")
def conv() -> ImportedConversation:
    (only,) = list(chatgpt.read(FIXTURE))
    return only


def _msg(conv: ImportedConversation, key: str) -> Message:
    (found,) = [m for m in conv.messages if m.id == key]
    return found


def test_chatgpt_parts_body_user_editable_context(conv: ImportedConversation) -> None:
    ctx = _msg(conv, "ctx")
    assert ctx.role == "system" and ctx.text == "The user likes short answers."


def test_chatgpt_parts_body_thoughts_and_recap_are_thinking(conv: ImportedConversation) -> None:
    (thought,) = _msg(conv, "th").parts
    assert thought.kind == "thinking"
    assert thought.text == "I will compute the squares in python first."
    (recap,) = _msg(conv, "rr").parts
    assert (recap.kind, recap.text, recap.meta["recap"]) == ("thinking", "Thought for 4 seconds",
                                                             True)


def test_chatgpt_parts_body_code_call_keeps_its_code(conv: ImportedConversation) -> None:
    (call,) = _msg(conv, "py").parts
    assert call.kind == "tool_use" and call.tool_name == "python"
    assert json.loads(call.text) == {"code": "print([n*n for n in (1, 2, 3)])"}


def test_chatgpt_parts_body_execution_output_answers_the_call(conv: ImportedConversation) -> None:
    (result,) = _msg(conv, "out").parts
    assert (result.kind, result.text) == ("tool_result", "[1, 4, 9]")
    assert result.tool_use_id == _msg(conv, "py").parts[0].tool_use_id


def test_chatgpt_parts_body_browsing_quote_and_error(conv: ImportedConversation) -> None:
    assert _msg(conv, "web").parts[0].text.startswith("Squares - Wikipedia")
    assert _msg(conv, "q").parts[0].text.startswith("In mathematics, a square number")
    err = _msg(conv, "err").parts[0]
    assert err.text == "The browser tool timed out." and err.is_error


def test_chatgpt_unreadable_content_is_kept_raw_with_a_note(conv: ImportedConversation) -> None:
    (raw,) = _msg(conv, "blob").parts
    assert "zzzz-only-this" in raw.text and raw.meta["unreadable_content_type"] == "thoughts"
    assert any("blob" in n and "thoughts" in n and "raw JSON" in n for n in conv.notes)


def test_chatgpt_no_message_with_content_imports_empty(conv: ImportedConversation) -> None:
    empty = [m.id for m in conv.messages if not any(p.text.strip() or p.data for p in m.parts)]
    assert empty == []
