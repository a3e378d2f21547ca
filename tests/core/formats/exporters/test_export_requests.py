"""Anthropic and OpenAI request bodies pass the providers' ordering rules, whatever the path."""

from __future__ import annotations

import json
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from request_rules import anthropic_violations, openai_violations

from explorer.app.importing.demo import load_demo
from explorer.app.sharing.exporting import EXPORTERS
from explorer.formats import claude_code
from explorer.formats.exporters.steps import INTERRUPTED, active_path, answered_steps
from explorer.providers.request_export import anthropic_export as anthropic_body
from explorer.providers.request_export import openai_export as openai_body
from explorer.store import Store
from explorer.store.reads_all import conversation_messages
from explorer.tree.model import Message, Part, text_message
from tests.corpus import claude_code_sessions as cc

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def _chain(messages: list[Message]) -> list[Message]:
    for i, m in enumerate(messages):
        m.id, m.parent_id = i, (i - 1 if i else None)
    return messages


def _call(*ids: str, text: str = "") -> Message:
    parts = [Part("text", text)] if text else []
    parts += [Part("tool_use", json.dumps({"n": k}), tool_name="Bash", tool_use_id=k) for k in ids]
    return Message(id=None, parent_id=None, role="assistant", parts=parts, model="claude-x")


def _results(*ids: str, role: str = "user") -> Message:
    parts = [Part("tool_result", f"out {k}", tool_use_id=k) for k in ids]
    return Message(id=None, parent_id=None, role=role, parts=parts)  # type: ignore[arg-type]


def _user(text: str) -> Message:
    return text_message(None, None, "user", text)


def _both(path: list[Message]) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    notes: list[str] = []
    return anthropic_body(path, notes), openai_body(path, notes), notes


# -- the validator itself ---------------------------------------------------------------


def test_validator_rejects_an_unanswered_anthropic_tool_use() -> None:
    body = {"max_tokens": 10, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_X", "name": "Bash", "input": {}}]},
        {"role": "user", "content": "go on"},
    ]}
    assert anthropic_violations(body) == [
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_X. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."
    ]


def test_validator_rejects_an_orphan_anthropic_tool_result() -> None:
    body = {"max_tokens": 10, "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_Y"}]},
    ]}
    assert anthropic_violations(body) == [
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_Y. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
        "message."
    ]


def test_validator_rejects_anthropic_role_order_and_late_results() -> None:
    body = {"max_tokens": 10, "messages": [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "first"}, {"type": "tool_result", "tool_use_id": "t1"}]},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": "done  "},
    ]}
    errors = anthropic_violations(body)
    assert 'messages: first message must use the "user" role' in errors
    assert any("`tool_result` blocks must come first" in e for e in errors)
    assert ('messages: roles must alternate between "user" and "assistant", but found '
            'multiple "user" roles in a row') in errors
    assert "messages: final assistant content cannot end with trailing whitespace" in errors


def test_validator_rejects_unanswered_openai_tool_calls() -> None:
    body = {"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "call_2", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        {"role": "user", "content": "next"},
    ]}
    assert openai_violations(body) == [
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2"
    ]


def test_validator_rejects_an_openai_tool_message_without_a_call() -> None:
    body = {"messages": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_9", "content": "stray"},
    ]}
    assert openai_violations(body) == [
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'."
    ]


def test_validator_rejects_openai_shape_errors() -> None:
    body = {"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}],
         "tool_calls": [{"id": "c", "type": "function",
                         "function": {"name": "f", "arguments": {"a": 1}}}]},
        {"role": "tool", "tool_call_id": "other", "content": "x"},
    ]}
    errors = openai_violations(body)
    assert any("Image URLs are only allowed for messages with role 'user'" in e for e in errors)
    assert any("function.arguments': expected a string" in e for e in errors)
    assert "Invalid parameter: 'tool_call_id' of 'other' not found in 'tool_calls' of " \
           "previous message." in errors


def test_validator_accepts_well_formed_bodies() -> None:
    anthropic = {"max_tokens": 10, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "let me look"},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"},
                                     {"type": "text", "text": "and?"}]},
    ]}
    openai = {"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
    ]}
    assert anthropic_violations(anthropic) == []
    assert openai_violations(openai) == []


# -- bodies built from paths ----------------------------------------------------------


def test_parallel_results_in_separate_messages_are_gathered_after_their_call() -> None:
    path = _chain([_user("go"), _call("a", "b"), _results("b"), _results("a"), _call(),
                   text_message(None, None, "assistant", "done")])
    path[4].parts = [Part("text", "both ran")]
    anthropic, openai, notes = _both(path)
    assert anthropic_violations(anthropic) == [] and openai_violations(openai) == []
    results = anthropic["messages"][2]["content"]
    assert [b["tool_use_id"] for b in results] == ["a", "b"]
    assert [m["role"] for m in openai["messages"]] == ["user", "assistant", "tool", "tool",
                                                       "assistant", "assistant"]
    assert anthropic["messages"][-1]["content"] == [{"type": "text", "text": "both ran"},
                                                    {"type": "text", "text": "done"}]
    assert notes == []


def test_a_path_ending_mid_turn_gets_an_interrupted_error_result() -> None:
    path = _chain([_user("go"), _call("a", "b"), _results("a")])
    anthropic, openai, notes = _both(path)
    assert anthropic_violations(anthropic) == [] and openai_violations(openai) == []
    last = anthropic["messages"][-1]["content"]
    assert last[1] == {"type": "tool_result", "tool_use_id": "b", "is_error": True,
                       "content": [{"type": "text", "text": INTERRUPTED}]}
    assert openai["messages"][-1]["content"] == f"Error: {INTERRUPTED}"
    assert any("tool call b has no result" in n for n in notes)


def test_an_orphan_result_becomes_text_and_is_noted() -> None:
    path = _chain([_results("gone"), _call(text="hello")])
    path[1].parts = [Part("text", "hello")]
    anthropic, openai, notes = _both(path)
    assert anthropic_violations(anthropic) == [] and openai_violations(openai) == []
    assert "out gone" in anthropic["messages"][0]["content"][0]["text"]
    assert any("answers no call" in n for n in notes)


def test_system_text_goes_to_the_top_level_system_field() -> None:
    path = _chain([text_message(None, None, "system", "be brief"), _user("hi")])
    anthropic, openai, _ = _both(path)
    assert anthropic["system"] == "be brief"
    assert all(m["role"] != "system" for m in anthropic["messages"])
    assert openai["messages"][0] == {"role": "system", "content": "be brief"}


def test_images_become_base64_blocks_and_data_urls() -> None:
    image = Message(id=None, parent_id=None, role="user", parts=[
        Part("text", "look"), Part("image", data=PNG, media_type="image/png")])
    anthropic, openai, _ = _both(_chain([image]))
    assert anthropic["messages"][0]["content"][1]["source"]["media_type"] == "image/png"
    url = openai["messages"][0]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")


def test_tool_result_images_follow_the_tool_messages_for_openai() -> None:
    shot = Message(id=None, parent_id=None, role="user", parts=[
        Part("tool_result", "", tool_use_id="s", data=PNG, media_type="image/png")])
    path = _chain([_user("shoot"), _call("s"), shot])
    anthropic, openai, _ = _both(path)
    assert anthropic_violations(anthropic) == [] and openai_violations(openai) == []
    assert anthropic["messages"][2]["content"][0]["content"][0]["type"] == "image"
    assert openai["messages"][-1]["role"] == "user"
    assert openai["messages"][-1]["content"][1]["type"] == "image_url"


# -- the demo and real Claude Code sessions --------------------------------------------


def _demo_paths(tmp_path: Path) -> list[list[Message]]:
    store = Store(tmp_path / "demo.db")
    load_demo(store)
    paths = []
    for conv in store.conversations():
        messages = conversation_messages(store.reader, conv.id)
        paths += [active_path(messages, m.id) for m in messages]  # every branch of the tree
    store.close()
    return paths


def test_every_path_of_the_demo_exports_to_valid_bodies(tmp_path: Path) -> None:
    paths = _demo_paths(tmp_path)
    assert len(paths) > 30
    for path in paths:
        anthropic, openai, _ = _both(path)
        assert anthropic_violations(anthropic) == [], path[-1].id
        assert openai_violations(openai) == [], path[-1].id


def _sample_sessions(tmp: Path) -> list[Path]:
    """The recorded sessions, and the recording with a rewind and a loop built in."""
    return [*cc.sessions(), cc.fork_in_one_file(tmp / "rewound"), cc.looped(tmp / "looped"),
            cc.reply_alone(tmp / "alone")]


def test_every_claude_code_sample_exports_to_valid_bodies(tmp_path: Path) -> None:
    sessions = _sample_sessions(tmp_path)
    assert len(sessions) == 5
    checked = 0
    for session in sessions:
        for conv in claude_code.read(session):
            path = active_path(conv.messages, conv.tip)
            calls = sum(len(m.tool_uses()) for m in path)
            for name, rules in (("anthropic", anthropic_violations),
                                ("openai", openai_violations)):
                text = "\n".join(EXPORTERS[name].lines({}, conv.messages, conv.tip))
                assert rules(json.loads(text)) == [], (session.name, name)
            body = anthropic_body(path, [])
            sent = sum(1 for m in body["messages"] if isinstance(m["content"], list)
                       for b in m["content"] if b["type"] == "tool_use")
            assert sent == calls, session.name
            checked += 1
    assert checked == 5


# -- any path at all ------------------------------------------------------------------


@st.composite
def _paths(draw: st.DrawFn) -> list[Message]:
    """Turns of prompts, calls (some parallel), results (together, split or shuffled)."""
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(text_message(None, None, "system", "system prompt"))
    n = 0
    for _turn in range(draw(st.integers(1, 4))):
        messages.append(_user(draw(st.sampled_from(["do it", "  ", "why?"]))))
        for _round in range(draw(st.integers(0, 3))):
            ids = [f"c{n + k}" for k in range(draw(st.integers(1, 3)))]
            n += len(ids)
            messages.append(_call(*ids, text=draw(st.sampled_from(["", "calling"]))))
            answered = draw(st.lists(st.sampled_from(ids), unique=True))
            role = draw(st.sampled_from(["user", "tool"]))
            if draw(st.booleans()):
                messages.extend(_results(k, role=role) for k in answered)
            elif answered:
                messages.append(_results(*answered, role=role))
            if draw(st.booleans()):
                messages.append(_user("[Request interrupted by user]"))
        messages.append(text_message(None, None, "assistant", draw(st.sampled_from(
            ["answer", "answer with space ", ""]))))
    cut = draw(st.integers(1, len(messages)))  # a path may end mid-turn
    start = draw(st.integers(0, min(2, cut - 1)))  # or start after a trim
    return _chain(messages[start:cut])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_paths())
def test_any_path_yields_bodies_the_providers_accept(path: list[Message]) -> None:
    anthropic, openai, _ = _both(path)
    assert anthropic_violations(anthropic) == []
    assert openai_violations(openai) == []
    steps = answered_steps(path, [])
    called = [str(p.tool_use_id) for s in steps for p in s.parts if p.kind == "tool_use"]
    answered = [str(p.tool_use_id) for s in steps if s.results for p in s.parts]
    assert sorted(called) == sorted(set(answered))
    assert all(not s.results or steps[i - 1].role == "assistant" for i, s in enumerate(steps))


@pytest.mark.parametrize("name", ["anthropic", "openai"])
def test_registry_bodies_are_json_documents(tmp_path: Path, name: str) -> None:
    path = _demo_paths(tmp_path)[-1]
    tip: Hashable = path[-1].id
    text = "\n".join(EXPORTERS[name].lines({"title": "t"}, path, tip))
    body = json.loads(text)
    assert body["messages"] and EXPORTERS[name].suffix == ".json"
