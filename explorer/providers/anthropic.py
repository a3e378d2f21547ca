"""The Anthropic Messages API: request bodies in its shape, its event stream, its errors.

The system text goes apart from the messages; roles alternate starting with a user; each
``tool_use`` is answered by a ``tool_result`` at the start of the very next user message;
images travel base64-encoded. A prompt over the window comes back as ``prompt is too long:
N tokens > M maximum`` (N is what the provider measured) and a body over the byte limit as
413 ``request_too_large``; both are :class:`ContextOverflow`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from explorer.compaction.estimate import Family, parse_overflow
from explorer.compaction.target import ImageRule, ProviderKind, rule_for
from explorer.providers import endpoints
from explorer.providers.anthropic_body import request_body
from explorer.providers.base import (
    Completion,
    ConnectionLost,
    ContextOverflow,
    ProviderError,
    Secret,
    TextCallback,
    redact,
)
from explorer.providers.http import (
    HttpPolicy,
    SseEvent,
    classify,
    error_fields,
    stream_events,
)
from explorer.tree.model import Message, Part, Usage

DEFAULT_BASE_URL = endpoints.ANTHROPIC_URL
API_VERSION = "2023-06-01"


def parse_error(status: int | None, body: bytes, headers: httpx.Headers | None,
                key: Secret | None = None) -> ProviderError:
    """The classified error for an error response (or an ``error`` event in the stream)."""
    etype, message, _ = error_fields(body)
    message = redact(message, key)
    overflow = parse_overflow(message)
    if overflow is not None and etype in (None, "invalid_request_error"):
        return ContextOverflow(message, status=status, measured=overflow.measured,
                               maximum=overflow.maximum)
    return classify(status, etype, message, headers)


@dataclass
class _Stream:
    """What the events said so far."""

    on_text: TextCallback | None
    model: str
    blocks: dict[int, dict[str, Any]] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    stop_reason: str | None = None
    done: bool = False

    def feed(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            self.model = str(message.get("model") or self.model)
            self._usage(message.get("usage") or {})
        elif kind == "content_block_start":
            block = dict(event.get("content_block") or {})
            block.setdefault("text", "")
            block["json"] = ""
            self.blocks[int(event.get("index", len(self.blocks)))] = block
        elif kind == "content_block_delta":
            self._delta(int(event.get("index", 0)), event.get("delta") or {})
        elif kind == "message_delta":
            self.stop_reason = (event.get("delta") or {}).get("stop_reason") or self.stop_reason
            self._usage(event.get("usage") or {})
        elif kind == "message_stop":
            self.done = True

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.blocks.setdefault(index, {"type": "text", "text": "", "json": ""})
        kind = delta.get("type")
        if kind == "text_delta":
            text = str(delta.get("text", ""))
            block["text"] += text
            if self.on_text is not None and text:
                self.on_text(text)
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
        elif kind == "input_json_delta":
            block["json"] += str(delta.get("partial_json", ""))

    def _usage(self, usage: dict[str, Any]) -> None:
        names = {
            "input_tokens": "input_tokens",
            "output_tokens": "output_tokens",
            "cache_read_input_tokens": "cache_read_tokens",
            "cache_creation_input_tokens": "cache_write_tokens",
        }
        for api_name, field_name in names.items():
            if isinstance(usage.get(api_name), int):
                setattr(self.usage, field_name, usage[api_name])

    def parts(self) -> list[Part]:
        out: list[Part] = []
        for _, block in sorted(self.blocks.items()):
            if block.get("type") == "text" and block["text"]:
                out.append(Part("text", block["text"]))
            elif block.get("type") == "thinking" and block.get("thinking"):
                out.append(Part("thinking", block["thinking"]))
            elif block.get("type") == "tool_use":
                args = block["json"] or json.dumps(block.get("input") or {})
                out.append(Part("tool_use", args, tool_name=block.get("name"),
                                tool_use_id=block.get("id")))
        return out


def read_stream(
    events: Iterator[SseEvent], on_text: TextCallback | None, model: str,
    key: Secret | None = None,
) -> Completion:
    """A whole answer from the event stream; a stream without ``message_stop`` is incomplete."""
    state = _Stream(on_text, model)
    for event in events:
        try:
            data = json.loads(event.data)
        except ValueError:
            raise ConnectionLost(f"unreadable {event.event!r} event in the stream") from None
        if not isinstance(data, dict):
            continue
        if data.get("type") == "error" or event.event == "error":
            raise parse_error(None, event.data.encode(), None, key)
        state.feed(data)
        if state.done:
            return Completion(state.parts(), state.usage, state.model, state.stop_reason)
    raise ConnectionLost("the stream ended before the answer was complete (no message_stop)")


@dataclass
class AnthropicProvider:
    """Claude through the Messages API (``POST {base_url}/v1/messages``)."""

    model_name: str
    api_key: Secret | None
    base_url: str = DEFAULT_BASE_URL
    max_tokens: int = 4096
    policy: HttpPolicy = field(default_factory=HttpPolicy)
    images: ImageRule | None = None  # default: the rule of the kind and model

    @property
    def image_rule(self) -> ImageRule:
        return self.images or rule_for(self.kind, self.model_name)

    @property
    def kind(self) -> ProviderKind:
        return ProviderKind.ANTHROPIC

    @property
    def family(self) -> Family:
        return "anthropic"

    @property
    def model(self) -> str:
        return self.model_name

    def headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION, "content-type": "application/json",
                   "accept": "text/event-stream"}
        if self.api_key:
            headers["x-api-key"] = self.api_key.reveal()
        return headers

    def complete(
        self,
        messages: Sequence[Message],
        *,
        on_text: TextCallback | None = None,
        cancel: threading.Event | None = None,
        max_tokens: int | None = None,
        prompt_start: int | None = None,
    ) -> Completion:
        """Stream one answer; ``messages[prompt_start:]`` is the new prompt (cache marks)."""
        body = request_body(messages, self.model_name, max_tokens or self.max_tokens,
                            images=self.image_rule, prompt_start=prompt_start)
        url = self.base_url.rstrip("/") + "/v1/messages"
        key = self.api_key
        return stream_events(
            url, self.headers(), body,
            lambda status, raw, headers: parse_error(status, raw, headers, key),
            lambda events: read_stream(events, on_text, self.model_name, key),
            policy=self.policy, cancel=cancel,
        )
