"""Classifying the providers' real error bodies, and reading their event streams."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from explorer.app.calls.conversation_ops import _answer
from explorer.compaction.context import CompactionPlan
from explorer.compaction.estimate import Estimator
from explorer.providers import anthropic, openai
from explorer.providers.base import (
    AuthError,
    BadRequest,
    ConnectionLost,
    ContextOverflow,
    RateLimited,
    Secret,
    ServerError,
    redact,
)
from explorer.providers.http import HttpPolicy, iter_sse, retry_after


def _body(obj: object) -> bytes:
    return json.dumps(obj).encode()


def test_L7_anthropic_prompt_too_long_carries_the_measured_count() -> None:
    error = anthropic.parse_error(400, _body({"type": "error", "error": {
        "type": "invalid_request_error",
        "message": "prompt is too long: 215000 tokens > 200000 maximum"}}), httpx.Headers())
    assert isinstance(error, ContextOverflow)
    assert (error.measured, error.maximum) == (215_000, 200_000)


def test_L7_anthropic_413_is_an_overflow_without_a_count() -> None:
    error = anthropic.parse_error(413, _body({"type": "error", "error": {
        "type": "request_too_large",
        "message": "Request exceeds the maximum allowed number of bytes."}}), httpx.Headers())
    assert isinstance(error, ContextOverflow) and error.measured is None


@pytest.mark.parametrize(("body", "measured", "maximum"), [
    ({"error": {"message": "This model's maximum context length is 128000 tokens. However, your "
                           "messages resulted in 130532 tokens. Please reduce the length of the "
                           "messages.", "type": "invalid_request_error", "param": "messages",
                "code": "context_length_exceeded"}}, 130_532, 128_000),
    ({"error": {"code": 400, "message": "the request exceeds the available context size, try "
                                        "increasing it", "type": "exceed_context_size_error",
                "n_prompt_tokens": 9000, "n_ctx": 8192}}, 9000, 8192),
    ({"object": "error", "message": "This model's maximum context length is 4096 tokens. However, "
                                    "you requested 5000 tokens (4000 in the messages, 1000 in "
                                    "the completion).", "type": "BadRequestError", "code": 400},
     4000, None),
])
def test_L7_openai_and_compatible_overflows_are_recognised(
    body: dict[str, object], measured: int, maximum: int | None
) -> None:
    error = openai.parse_error(400, _body(body), httpx.Headers())
    assert isinstance(error, ContextOverflow)
    assert error.measured == measured
    if maximum is not None:
        assert error.maximum == maximum


@pytest.mark.parametrize(("status", "etype", "kind"), [
    (401, "authentication_error", AuthError), (403, "permission_error", AuthError),
    (429, "rate_limit_error", RateLimited), (529, "overloaded_error", ServerError),
    (500, "api_error", ServerError), (400, "invalid_request_error", BadRequest),
    (429, "insufficient_quota", BadRequest),
])
def test_errors_are_classified_by_status_and_type(
    status: int, etype: str, kind: type[Exception]
) -> None:
    body = _body({"type": "error", "error": {"type": etype, "message": "m"}})
    error = anthropic.parse_error(status, body, httpx.Headers({"retry-after": "3"}))
    assert type(error) is kind
    assert error.retryable == (kind in (RateLimited, ServerError))
    if isinstance(error, RateLimited):
        assert error.retry_after == 3.0


def test_an_unreadable_error_body_still_gives_a_clear_error() -> None:
    error = anthropic.parse_error(502, b"<html>Bad gateway</html>", httpx.Headers())
    assert isinstance(error, ServerError) and "Bad gateway" in str(error)


def test_a_key_quoted_by_a_server_is_redacted() -> None:
    key = Secret("sk-very-secret")
    error = openai.parse_error(401, _body({"error": {"message": "bad key sk-very-secret",
                                                     "code": "invalid_api_key"}}),
                               httpx.Headers(), key)
    assert "sk-very-secret" not in str(error) and "***" in str(error)
    assert redact("x", None) == "x" and repr(key) == "Secret('***')"


def test_retry_after_in_seconds_milliseconds_and_http_dates() -> None:
    assert retry_after(httpx.Headers({"retry-after": "12"})) == 12.0
    assert retry_after(httpx.Headers({"retry-after-ms": "1500", "retry-after": "9"})) == 1.5
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)
    value = retry_after(httpx.Headers({"retry-after": later}))
    assert value is not None and 60 < value <= 120
    assert retry_after(httpx.Headers({"retry-after": "soon"})) is None
    policy = HttpPolicy(backoff=1.0, max_delay=10.0)
    assert [policy.delay(n, ServerError("x")) for n in (1, 2, 3, 5)] == [1.0, 2.0, 4.0, 10.0]
    assert policy.delay(1, RateLimited("x", retry_after=6.0)) == 6.0


def test_sse_reader_joins_data_lines_skips_comments_and_drops_a_cut_event() -> None:
    lines = [": keep-alive", "event: a", "data: 1", "data: 2", "", "data: x", "", "event: b",
             "data: cut"]
    events = list(iter_sse(iter(lines)))
    assert [(e.event, e.data) for e in events] == [("a", "1\n2"), ("message", "x")]


def _sse(*events: dict[str, object]) -> list[str]:
    out: list[str] = []
    for e in events:
        out += [f"event: {e['type']}", f"data: {json.dumps(e)}", ""]
    return out


def test_anthropic_stream_with_thinking_and_a_tool_call() -> None:
    lines = _sse(
        {"type": "message_start", "message": {"model": "m", "usage": {
            "input_tokens": 10, "cache_creation_input_tokens": 4, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking",
                                                                      "thinking": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta",
                                                              "thinking": "let me see"}},
        {"type": "content_block_start", "index": 1, "content_block": {
            "type": "tool_use", "id": "tu1", "name": "ls", "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta",
                                                              "partial_json": '{"dir": '}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta",
                                                              "partial_json": '"."}'}},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
         "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    )
    done = anthropic.read_stream(iter_sse(iter(lines)), None, "m")
    assert [p.kind for p in done.parts] == ["thinking", "tool_use"]
    assert json.loads(done.parts[1].text) == {"dir": "."}
    assert done.usage.to_dict() == {"input_tokens": 10, "output_tokens": 9,
                                    "cache_write_tokens": 4}
    assert done.stop_reason == "tool_use"
    plan = CompactionPlan("proactive", "none", (), (), Estimator())
    stored = _answer(done, anthropic.AnthropicProvider("m", None), plan, False)
    assert all(p.kind != "tool_use" for p in stored.parts)  # no call is left waiting (P1)
    assert "[tool call ls (not run)]" in stored.text


def test_anthropic_error_event_and_a_stream_without_message_stop() -> None:
    overloaded = _sse({"type": "error", "error": {"type": "overloaded_error",
                                                  "message": "Overloaded"}})
    with pytest.raises(ServerError):
        anthropic.read_stream(iter_sse(iter(overloaded)), None, "m")
    unfinished = _sse({"type": "message_start", "message": {"model": "m", "usage": {}}})
    with pytest.raises(ConnectionLost, match="message_stop"):
        anthropic.read_stream(iter_sse(iter(unfinished)), None, "m")


def test_openai_stream_tool_call_deltas_and_the_end_of_stream_rules() -> None:
    def chunk(delta: dict[str, object], finish: str | None = None) -> list[str]:
        return [f"data: {json.dumps({'choices': [{'delta': delta, 'finish_reason': finish}]})}",
                ""]

    lines = (chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f",
                                                                         "arguments": "{\"a\""}}]})
             + chunk({"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]})
             + chunk({"reasoning_content": "think"}) + chunk({}, "tool_calls"))
    done = openai.read_stream(iter_sse(iter([*lines, "data: [DONE]", ""])), None, "m")
    assert [p.kind for p in done.parts] == ["thinking", "tool_use"]
    assert json.loads(done.parts[1].text) == {"a": 1} and done.parts[1].tool_use_id == "c1"
    assert openai.read_stream(iter_sse(iter(lines)), None, "m").stop_reason == "tool_calls"
    with pytest.raises(ConnectionLost, match=r"\[DONE\]"):
        openai.read_stream(iter_sse(iter(chunk({"content": "half"}))), None, "m")
