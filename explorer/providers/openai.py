"""OpenAI Chat Completions, and the servers that speak it (Ollama, llama.cpp, vLLM, LM Studio).

Tool calls ride on the assistant message as ``tool_calls``; each is answered by a ``role: tool``
message with its ``tool_call_id`` right after it, before anything else. Images go as
``image_url`` data URLs. The stream is ``data:`` chunks ending in ``[DONE]``, with usage in a
last chunk when ``stream_options.include_usage`` is set. Overflow is ``context_length_exceeded``
(OpenAI), ``exceed_context_size_error`` (llama.cpp) or vLLM's wording; Ollama truncates silently.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from explorer.compaction.estimate import Family, parse_overflow
from explorer.compaction.target import ImageRule, ProviderKind, rule_for
from explorer.providers import endpoints
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
from explorer.providers.openai_body import request_body
from explorer.tree.model import Message, Part, Usage

DEFAULT_BASE_URL = endpoints.OPENAI_URL
DEFAULT_COMPATIBLE_URL = endpoints.OPENAI_COMPATIBLE_URL
OVERFLOW_CODES = ("context_length_exceeded", "exceed_context_size_error")
_MEASURED = (
    re.compile(r"\(([\d,]+) in the messages"),
    re.compile(r"request has ([\d,]+) input tokens"),
)
_CONTEXT_WORDS = re.compile(r"maximum context length|exceeds? the (?:available )?context", re.I)


def parse_error(status: int | None, body: bytes, headers: httpx.Headers | None,
                key: Secret | None = None) -> ProviderError:
    etype, message, err = error_fields(body)
    message = redact(message, key)
    overflow = parse_overflow(message)
    if etype in OVERFLOW_CODES or overflow is not None or _CONTEXT_WORDS.search(message):
        measured = overflow.measured if overflow else _int(err.get("n_prompt_tokens"))
        maximum = overflow.maximum if overflow else _int(err.get("n_ctx"))
        for pattern in _MEASURED:
            found = pattern.search(message)
            if found and measured is None:
                measured = int(found.group(1).replace(",", ""))
        return ContextOverflow(message, status=status, measured=measured, maximum=maximum)
    return classify(status, etype, message, headers)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class _Stream:
    on_text: TextCallback | None
    model: str
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None

    def feed(self, chunk: dict[str, Any]) -> None:
        self.model = str(chunk.get("model") or self.model)
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                self.text.append(str(delta["content"]))
                if self.on_text is not None:
                    self.on_text(str(delta["content"]))
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str):
                self.thinking.append(reasoning)
            for call in delta.get("tool_calls") or []:
                self._call(call)
            self.finish_reason = choice.get("finish_reason") or self.finish_reason
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage.input_tokens = _int(usage.get("prompt_tokens"))
            self.usage.output_tokens = _int(usage.get("completion_tokens"))
            details = usage.get("prompt_tokens_details") or {}
            self.usage.cache_read_tokens = _int(details.get("cached_tokens"))

    def _call(self, call: dict[str, Any]) -> None:
        slot = self.calls.setdefault(int(call.get("index", 0)), {"id": "", "name": "", "args": ""})
        fn = call.get("function") or {}
        slot["id"] = str(call.get("id") or slot["id"])
        slot["name"] = str(fn.get("name") or slot["name"])
        slot["args"] += str(fn.get("arguments") or "")

    def completion(self) -> Completion:
        parts = [Part("thinking", "".join(self.thinking))] if self.thinking else []
        if self.text:
            parts.append(Part("text", "".join(self.text)))
        parts += [Part("tool_use", c["args"], tool_name=c["name"], tool_use_id=c["id"] or None)
                  for _, c in sorted(self.calls.items())]
        return Completion(parts, self.usage, self.model, self.finish_reason)


def read_stream(
    events: Iterator[SseEvent], on_text: TextCallback | None, model: str,
    key: Secret | None = None,
) -> Completion:
    """A whole answer from ``data:`` chunks; complete at ``[DONE]`` (or a finish reason)."""
    state = _Stream(on_text, model)
    for event in events:
        if event.data.strip() == "[DONE]":
            return state.completion()
        try:
            chunk = json.loads(event.data)
        except ValueError:
            raise ConnectionLost("unreadable chunk in the stream") from None
        if isinstance(chunk, dict) and "error" in chunk:
            raise parse_error(None, event.data.encode(), None, key)
        if isinstance(chunk, dict):
            state.feed(chunk)
    if state.finish_reason is not None:  # some local servers close without [DONE]
        return state.completion()
    raise ConnectionLost("the stream ended before the answer was complete (no [DONE])")


@dataclass
class OpenAIProvider:
    """``POST {base_url}/chat/completions``; ``compatible`` for local OpenAI-style servers."""

    model_name: str
    api_key: Secret | None
    base_url: str = DEFAULT_BASE_URL
    compatible: bool = False
    max_tokens: int = 4096
    policy: HttpPolicy = field(default_factory=HttpPolicy)
    images: ImageRule | None = None  # default: the rule of the kind and model

    @property
    def image_rule(self) -> ImageRule:
        return self.images or rule_for(self.kind, self.model_name)

    @property
    def kind(self) -> ProviderKind:
        return ProviderKind.OPENAI_COMPATIBLE if self.compatible else ProviderKind.OPENAI

    @property
    def family(self) -> Family:
        return "generic" if self.compatible else "openai"

    @property
    def model(self) -> str:
        return self.model_name

    def headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key.reveal()}"
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
                            compatible=self.compatible, images=self.image_rule)
        url = self.base_url.rstrip("/") + "/chat/completions"
        key = self.api_key
        return stream_events(
            url, self.headers(), body,
            lambda status, raw, headers: parse_error(status, raw, headers, key),
            lambda events: read_stream(events, on_text, self.model_name, key),
            policy=self.policy, cancel=cancel,
        )
