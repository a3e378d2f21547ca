"""Requests in each API's own shape, checked by a server that applies the providers' rules."""

from __future__ import annotations

import base64
import io
import json

import httpx
import pytest
from PIL import Image
from provider_server import ProviderServer, ServerState

from explorer.formats.exporters.steps import INTERRUPTED
from explorer.providers import AnthropicProvider, OpenAIProvider
from explorer.providers.http import HttpPolicy
from explorer.tree.model import Message, Part


def png(width: int, height: int, color: int = 90) -> bytes:
    buf = io.BytesIO()
    Image.new("L", (width, height), color).save(buf, format="PNG")
    return buf.getvalue()


def msg(role: str, *parts: Part) -> Message:
    return Message(id=None, parent_id=None, role=role, parts=list(parts))


def tool_session() -> list[Message]:
    """System text, an image, two calls answered across a tool message and a user message,
    results after text in the source, and two assistant messages in a row."""
    return [
        msg("system", Part("text", "be brief")),
        msg("user", Part("text", "look at this"), Part("image", data=png(40, 30),
                                                        media_type="image/png")),
        msg("assistant", Part("thinking", "hmm"), Part("text", "reading"),
            Part("tool_use", '{"path": "a.py"}', tool_name="read", tool_use_id="t1"),
            Part("tool_use", '{"path": "b.py"}', tool_name="read", tool_use_id="t2")),
        msg("tool", Part("tool_result", "print(1)", tool_use_id="t1")),
        msg("user", Part("text", "also check b"), Part("tool_result", "boom", tool_use_id="t2",
                                                        is_error=True)),
        msg("assistant", Part("text", "done")),
        msg("assistant", Part("text", "one more thing")),
        msg("user", Part("text", "next")),
    ]


def test_anthropic_body_pairs_tools_merges_roles_and_sends_images(
    server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    provider = AnthropicProvider("claude-sonnet-4-5", None, server.url, 64, policy)
    completion = provider.complete(tool_session())
    assert completion.text == "Answer to: next"
    hit = state.hits[-1]
    assert hit.status == 200
    body = hit.body
    assert body is not None
    assert body["system"] == [{"type": "text", "text": "be brief",
                               "cache_control": {"type": "ephemeral"}}]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user", "assistant",
                                                     "user"]
    image = body["messages"][0]["content"][1]
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]) == png(40, 30)
    assert [b["type"] for b in body["messages"][1]["content"]] == ["text", "tool_use", "tool_use"]
    assert body["messages"][1]["content"][1]["input"] == {"path": "a.py"}
    results = body["messages"][2]["content"]
    assert [(b["type"], b.get("tool_use_id")) for b in results] == [
        ("tool_result", "t1"), ("tool_result", "t2"), ("text", None)]
    assert results[1]["is_error"] is True
    assert [b["text"] for b in body["messages"][3]["content"]] == ["done", "one more thing"]
    assert "cache_control" in body["messages"][-1]["content"][-1]  # a prompt cache breakpoint


def test_openai_body_answers_each_call_with_a_tool_message_right_after(
    server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    provider = OpenAIProvider("gpt-4.1", None, server.url + "/v1", False, 64, policy)
    assert provider.complete(tool_session()).text == "Answer to: next"
    body = state.hits[-1].body
    assert body is not None and state.hits[-1].status == 200
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool", "user", "assistant",
                     "assistant", "user"]
    assert [c["id"] for c in body["messages"][2]["tool_calls"]] == ["t1", "t2"]
    assert [m["tool_call_id"] for m in body["messages"][3:5]] == ["t1", "t2"]
    assert body["messages"][4]["content"] == "Error: boom"
    url = body["messages"][1]["content"][1]["image_url"]["url"]
    assert url == "data:image/png;base64," + base64.b64encode(png(40, 30)).decode()
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_completion_tokens"] == 64


def test_compatible_servers_get_max_tokens_and_plain_string_content(
    server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    provider = OpenAIProvider("llama3.2", None, server.url + "/v1", True, 64, policy)
    provider.complete([msg("user", Part("text", "hi"))])
    body = state.hits[-1].body
    assert body is not None
    assert body["max_tokens"] == 64 and "max_completion_tokens" not in body
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert "authorization" not in state.hits[-1].headers  # no key: no header


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_orphans_are_repaired_so_the_provider_accepts_the_request(
    kind: str, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    path = [
        msg("user", Part("tool_result", "orphan output", tool_use_id="gone")),
        msg("assistant", Part("tool_use", "{}", tool_name="ls", tool_use_id="open")),
        msg("user", Part("text", "carry on")),
    ]
    provider = (AnthropicProvider("claude-sonnet-4-5", None, server.url, 64, policy)
                if kind == "anthropic"
                else OpenAIProvider("gpt-4.1", None, server.url + "/v1", False, 64, policy))
    provider.complete(path)
    hit = state.hits[-1]
    assert hit.status == 200 and hit.body is not None
    sent = json.dumps(hit.body)
    assert "orphan output" in sent and INTERRUPTED in sent  # kept as text; the call answered
    first = hit.body["messages"][0]["content"]
    assert "orphan output" in (first if isinstance(first, str) else first[0]["text"])


def test_a_path_starting_with_an_answer_gets_a_user_turn_first(
    server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    provider = AnthropicProvider("claude-sonnet-4-5", None, server.url, 64, policy)
    provider.complete([msg("assistant", Part("text", "earlier")), msg("user", Part("text", "q"))])
    body = state.hits[-1].body
    assert state.hits[-1].status == 200 and body is not None
    assert body["messages"][0]["role"] == "user"


@pytest.mark.parametrize(("image", "why"), [
    (png(8001, 2), "8001 px > 8000 px"),
    (b"BM" + b"\0" * 60, "not accepted"),
])
def test_images_the_provider_would_refuse_become_markers(
    image: bytes, why: str, server: ProviderServer, state: ServerState, policy: HttpPolicy
) -> None:
    provider = AnthropicProvider("claude-sonnet-4-5", None, server.url, 64, policy)
    provider.complete([msg("user", Part("text", "see"), Part("image", data=image,
                                                             media_type="image/bmp"))])
    hit = state.hits[-1]
    assert hit.status == 200 and hit.body is not None
    marker = hit.body["messages"][0]["content"][1]
    assert marker["type"] == "text" and why in marker["text"]


# --- the validator is real: bodies that break the rules are refused with the documented text


def _post(server: ProviderServer, path: str, body: dict[str, object]) -> httpx.Response:
    headers = {"anthropic-version": "2023-06-01"}
    return httpx.post(server.url + path, json=body, headers=headers, timeout=5)


def _anthropic(messages: list[dict[str, object]]) -> dict[str, object]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 10, "stream": True, "messages": messages}


@pytest.mark.parametrize(("messages", "expected"), [
    ([{"role": "assistant", "content": "hi"}], 'first message must use the "user" role'),
    ([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
     "roles must alternate"),
    ([{"role": "user", "content": "a"},
      {"role": "assistant", "content": [{"type": "tool_use", "id": "x", "name": "n",
                                         "input": {}}]},
      {"role": "user", "content": "no result"}],
     "`tool_use` ids were found without `tool_result` blocks immediately after: x"),
    ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "y"}]}],
     "unexpected `tool_use_id` found in `tool_result` blocks: y"),
    ([{"role": "user", "content": [{"type": "image", "source": {
        "type": "base64", "media_type": "image/png",
        "data": base64.b64encode(png(8001, 2)).decode()}}]}],
     "exceed max allowed size: 8000 pixels"),
])
def test_fake_anthropic_refuses_what_the_real_one_refuses(
    server: ProviderServer, messages: list[dict[str, object]], expected: str
) -> None:
    response = _post(server, "/v1/messages", _anthropic(messages))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and expected in error["message"]


@pytest.mark.parametrize(("messages", "expected"), [
    ([{"role": "tool", "tool_call_id": "a", "content": "x"}],
     "must be a response to a preceeding message with 'tool_calls'"),
    ([{"role": "user", "content": "q"},
      {"role": "assistant", "content": None, "tool_calls": [
          {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
      {"role": "user", "content": "skipped the tool"}],
     "did not have response messages: c1"),
])
def test_fake_openai_refuses_what_the_real_one_refuses(
    server: ProviderServer, messages: list[dict[str, object]], expected: str
) -> None:
    response = _post(server, "/v1/chat/completions", {"model": "gpt-4.1", "messages": messages})
    assert response.status_code == 400
    assert expected in response.json()["error"]["message"]


def test_fake_anthropic_enforces_the_context_limit_with_the_exact_text(
    server: ProviderServer, state: ServerState
) -> None:
    state.limit = 10
    response = _post(server, "/v1/messages", _anthropic([{"role": "user", "content": "x" * 100}]))
    assert response.status_code == 400
    assert response.json() == {"type": "error", "error": {
        "type": "invalid_request_error",
        "message": f"prompt is too long: {state.hits[-1].measured} tokens > 10 maximum"}}
    assert json.dumps(response.json()).count("prompt is too long") == 1
