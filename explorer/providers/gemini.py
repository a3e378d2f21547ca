"""Google's Generative Language API: ``streamGenerateContent`` over server-sent events.

``POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`` with the key in the
``x-goog-api-key`` header (never in the URL, which shows in logs). Each event is a whole
``GenerateContentResponse``: text and ``functionCall`` parts under ``candidates[0].content``,
``usageMetadata`` (prompt, answer and cached tokens) and a ``finishReason`` on the last one.
A prompt over the window comes back as 400 ``INVALID_ARGUMENT`` saying "The input token count
(N) exceeds the maximum number of tokens allowed (M)", a :class:`ContextOverflow`.
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
from explorer.providers.base import (
    AuthError,
    Completion,
    ConnectionLost,
    ContextOverflow,
    ProviderError,
    Secret,
    TextCallback,
    redact,
)
from explorer.providers.gemini_body import request_body
from explorer.providers.http import HttpPolicy, SseEvent, classify, stream_events
from explorer.tree.model import Message, Part, Usage

DEFAULT_BASE_URL = endpoints.GEMINI_URL
_STATUS_TYPES = {"RESOURCE_EXHAUSTED": "rate_limit_error", "UNAVAILABLE": "overloaded_error",
                 "INTERNAL": "api_error", "UNAUTHENTICATED": "authentication_error",
                 "PERMISSION_DENIED": "permission_error"}


def parse_error(status: int | None, body: bytes, headers: httpx.Headers | None,
                key: Secret | None = None) -> ProviderError:
    """The classified error for a Gemini error body (``{"error": {code, message, status}}``)."""
    try:
        data = json.loads(body)
    except ValueError:
        data = {}
    err = data.get("error") if isinstance(data, dict) else None
    err = err if isinstance(err, dict) else {}
    message = redact(str(err.get("message") or body[:300].decode("utf-8", "replace")
                         or "no details"), key)
    overflow = parse_overflow(message)
    if overflow is not None:
        return ContextOverflow(message, status=status, measured=overflow.measured,
                               maximum=overflow.maximum)
    gstatus = str(err.get("status") or "")
    if gstatus == "INVALID_ARGUMENT" and "API key" in message:
        return AuthError(message, status=status)  # Gemini answers a bad key with 400
    return classify(status, _STATUS_TYPES.get(gstatus), message, headers)


@dataclass
class _Stream:
    on_text: TextCallback | None
    model: str
    text: list[str] = field(default_factory=list)
    calls: list[Part] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish: str | None = None

    def feed(self, chunk: dict[str, Any]) -> None:
        self.model = str(chunk.get("modelVersion") or self.model)
        for candidate in (chunk.get("candidates") or [])[:1]:
            for part in (candidate.get("content") or {}).get("parts") or []:
                self._part(part)
            self.finish = candidate.get("finishReason") or self.finish
        meta = chunk.get("usageMetadata")
        if isinstance(meta, dict):
            self.usage.input_tokens = _int(meta.get("promptTokenCount"))
            self.usage.output_tokens = _int(meta.get("candidatesTokenCount"))
            self.usage.cache_read_tokens = _int(meta.get("cachedContentTokenCount"))

    def _part(self, part: dict[str, Any]) -> None:
        if part.get("thought"):
            return
        if isinstance(part.get("text"), str):
            self.text.append(part["text"])
            if self.on_text is not None and part["text"]:
                self.on_text(part["text"])
        call = part.get("functionCall")
        if isinstance(call, dict):
            self.calls.append(Part("tool_use", json.dumps(call.get("args") or {}),
                                   tool_name=str(call.get("name") or "tool"),
                                   tool_use_id=f"call_{len(self.calls) + 1}"))

    def completion(self) -> Completion:
        parts = [Part("text", "".join(self.text))] if self.text else []
        return Completion(parts + self.calls, self.usage, self.model, self.finish)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_stream(events: Iterator[SseEvent], on_text: TextCallback | None, model: str,
                key: Secret | None = None) -> Completion:
    """A whole answer from the events; complete once a candidate names its finish reason."""
    state = _Stream(on_text, model)
    for event in events:
        try:
            chunk = json.loads(event.data)
        except ValueError:
            raise ConnectionLost("unreadable chunk in the stream") from None
        if isinstance(chunk, dict) and "error" in chunk:
            raise parse_error(None, event.data.encode(), None, key)
        if isinstance(chunk, dict):
            state.feed(chunk)
    if state.finish is not None:
        return state.completion()
    raise ConnectionLost("the stream ended before the answer was complete (no finishReason)")


@dataclass
class GeminiProvider:
    """Gemini through ``streamGenerateContent`` (the model is part of the URL)."""

    model_name: str
    api_key: Secret | None
    base_url: str = DEFAULT_BASE_URL
    max_tokens: int = 8192
    policy: HttpPolicy = field(default_factory=HttpPolicy)
    images: ImageRule | None = None  # default: the rule of the model

    @property
    def kind(self) -> ProviderKind:
        return ProviderKind.GEMINI

    @property
    def family(self) -> Family:
        return "gemini"

    @property
    def model(self) -> str:
        return self.model_name

    @property
    def image_rule(self) -> ImageRule:
        return self.images or rule_for(self.kind, self.model_name)

    def url(self) -> str:
        return (f"{self.base_url.rstrip('/')}/v1beta/models/{self.model_name}"
                ":streamGenerateContent?alt=sse")

    def headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if self.api_key:
            headers["x-goog-api-key"] = self.api_key.reveal()
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
        body = request_body(messages, max_tokens or self.max_tokens, images=self.image_rule)
        key = self.api_key
        return stream_events(
            self.url(), self.headers(), body,
            lambda status, raw, headers: parse_error(status, raw, headers, key),
            lambda events: read_stream(events, on_text, self.model_name, key),
            policy=self.policy, cancel=cancel,
        )
