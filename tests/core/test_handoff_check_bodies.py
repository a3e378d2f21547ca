"""The release check that resumes hand-backs with the real clients reads each provider's
request body the same way: prompts in order, each call answered before the next prompt."""

from __future__ import annotations

from typing import Any

import pytest

from tests.corpus.handoff_bodies import events
from tests.corpus.handoff_check import NEXT, _problems

ANTHROPIC = ("/v1/messages", {"messages": [
    {"role": "user", "content": "first"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "Bash"}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1"}]},
    {"role": "user", "content": [{"type": "text", "text": NEXT}]}]})
CHAT = ("/v1/chat/completions", {"messages": [
    {"role": "user", "content": "first"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c1"}]},
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    {"role": "user", "content": NEXT}]})
RESPONSES = ("/v1/responses", {"input": [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first"}]},
    {"type": "function_call", "call_id": "c1"},
    {"type": "function_call_output", "call_id": "c1"},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": NEXT}]}]})
GEMINI = ("/v1beta/models/m:streamGenerateContent?alt=sse", {"contents": [
    {"role": "user", "parts": [{"text": "first"}]},
    {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "run"}}]},
    {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "run"}}]},
    {"role": "user", "parts": [{"text": NEXT}]}]})


@pytest.mark.parametrize(("path", "body"), [ANTHROPIC, CHAT, RESPONSES, GEMINI])
def test_H1_a_branch_sent_in_order_with_its_call_answered_passes(
        path: str, body: dict[str, Any]) -> None:
    sent = events(path, body)
    assert [e.kind for e in sent] == ["user", "call", "result", "user"]
    assert _problems(sent, ["first"], 1) == []
    assert _problems(sent, ["first", "never said"], 1) == [
        "prompt missing or out of order: 'never said'"]
    assert _problems(sent, ["first"], 2) == ["1 of the branch's 2 calls were sent"]


def test_H1_a_call_left_unanswered_before_the_next_prompt_is_named() -> None:
    path, body = CHAT
    unanswered = {"messages": [m for m in body["messages"] if m["role"] != "tool"]}
    assert _problems(events(path, unanswered), ["first"], 1) == [
        "calls ['c1'] not answered before the next prompt"]
    assert _problems(None, ["first"], 1) == ["no request carried the new prompt"]


def test_H1_prompts_sent_together_in_one_message_still_count_in_order() -> None:
    """OpenCode sends consecutive prompts as one message of several parts."""
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "first"},
                                                      {"type": "text", "text": "second"}]},
                         {"role": "user", "content": NEXT}]}
    sent = events("/v1/chat/completions", body)
    assert _problems(sent, ["first", "second"], 0) == []
    assert _problems(sent, ["second", "first"], 0) == [
        "prompt missing or out of order: 'first'"]
