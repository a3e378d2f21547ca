"""A local HTTP server that behaves like the Anthropic Messages API and OpenAI Chat Completions.

It validates requests with the providers' documented rules and answers with their error bodies
(tool-call pairing, roles, image limits, the context limit with the exact "too long" texts),
streams answers in each API's event format, and injects faults on demand: a connection dropped
mid-stream, 429 with ``retry-after``, 500/529, an authentication failure, a response slower than
the client's timeout. Tokens are "measured" by a fixed rule (text characters / 2, images by
each provider's published pricing), which deliberately differs from the client's heuristic.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import math
import os
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from PIL import Image

from explorer.compaction import image_cost

ANTHROPIC_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
ANTHROPIC_MAX_IMAGE = 5 * 1024 * 1024
ANTHROPIC_MAX_SIDE = 8000
OPENAI_MAX_IMAGE = 20 * 1024 * 1024


class Rejection(Exception):
    def __init__(self, status: int, etype: str, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.etype, self.message, self.code = status, etype, message, code


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    status: int = 0
    measured: int | None = None
    fault: str | None = None
    cache_read: int = 0
    cache_write: int = 0


@dataclass
class ServerState:
    anthropic_key: str | None = None
    openai_key: str | None = None
    gemini_key: str | None = None
    limit: int = 200_000
    chars_per_token: float = 2.0
    hidden_overhead: int = 0
    # bills an Anthropic image by this rule instead of the one the program assumes
    anthropic_image_rule: Callable[[int, int], int] | None = None
    cache_read: int = 0
    prompt_cache: dict[str, int] | None = None  # Anthropic's cache: prefix -> its tokens
    max_body_bytes: int = 32 * 1024 * 1024
    slow_seconds: float = 3.0
    retry_after: str = "7"
    faults: deque[str] = field(default_factory=deque)
    # answers from the body instead of naming the last user text (Anthropic and OpenAI shapes)
    responder: Callable[[dict[str, Any], bool], str] | None = None
    hits: list[Hit] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def hits_to(self, suffix: str) -> list[Hit]:
        return [h for h in self.hits if h.path.endswith(suffix)]


# --- token measurement -----------------------------------------------------------------------


def _image_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as img:
        return int(img.size[0]), int(img.size[1])


def text_tokens(state: ServerState, text: str) -> int:
    return math.ceil(len(text) / state.chars_per_token)


def measure_anthropic(state: ServerState, body: dict[str, Any]) -> int:
    total = state.hidden_overhead + text_tokens(state, _system_text(body.get("system")))
    for message in body["messages"]:
        total += 3
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            kind = block.get("type")
            if kind == "text":
                total += text_tokens(state, block["text"])
            elif kind == "tool_use":
                total += text_tokens(state, block["name"] + json.dumps(block["input"])) + 10
            elif kind == "tool_result":
                total += text_tokens(state, _result_text(block.get("content"))) + 5
            elif kind == "image":
                w, h = _image_size(base64.b64decode(block["source"]["data"]))
                rule = state.anthropic_image_rule
                total += rule(w, h) if rule else image_cost.anthropic_tokens(w, h, body["model"])
    return total


def measure_openai(state: ServerState, body: dict[str, Any]) -> int:
    total = state.hidden_overhead
    for message in body["messages"]:
        total += 3
        content = message.get("content")
        if isinstance(content, str):
            total += text_tokens(state, content)
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "text":
                total += text_tokens(state, part["text"])
            elif part.get("type") == "image_url":
                data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
                w, h = _image_size(data)
                total += image_cost.openai_tokens(w, h, body["model"])
        for call in message.get("tool_calls") or []:
            fn = call["function"]
            total += text_tokens(state, fn["name"] + fn["arguments"]) + 10
    return total


def measure_gemini(state: ServerState, body: dict[str, Any], model: str) -> int:
    system = body.get("systemInstruction") or {}
    total = state.hidden_overhead + sum(text_tokens(state, p.get("text", ""))
                                        for p in system.get("parts") or [])
    for content in body["contents"]:
        total += 3
        for part in content["parts"]:
            if "text" in part:
                total += text_tokens(state, part["text"])
            elif "inlineData" in part:
                w, h = _image_size(base64.b64decode(part["inlineData"]["data"]))
                total += image_cost.gemini_tokens(w, h, model)
            elif "functionCall" in part:
                call = part["functionCall"]
                total += text_tokens(state, call["name"] + json.dumps(call["args"])) + 10
            elif "functionResponse" in part:
                total += text_tokens(state, json.dumps(part["functionResponse"])) + 5
    return total


def _unmarked(value: Any) -> Any:
    if isinstance(value, list):
        return [{k: v for k, v in b.items() if k != "cache_control"} for b in value]
    return value


def cache_accounting(state: ServerState, body: dict[str, Any]) -> tuple[int, int]:
    """(read, written) like Anthropic's cache: a read matches a prefix written before at a
    breakpoint or up to 20 block boundaries before it; each breakpoint's prefix is written."""
    assert state.prompt_cache is not None
    system = body.get("system")
    bounds: list[tuple[dict[str, Any], bool]] = []
    if isinstance(system, list) and system:
        bounds.append(({"model": body["model"], "system": _unmarked(system), "messages": []},
                       "cache_control" in system[-1]))
    for i, message in enumerate(body["messages"]):
        content = message["content"]
        for j, block in enumerate(content if isinstance(content, list) else []):
            done = [{**m, "content": _unmarked(m["content"])} for m in body["messages"][:i]]
            head = {**message, "content": _unmarked(content[: j + 1])}
            bounds.append(({"model": body["model"], "system": _unmarked(system),
                            "messages": [*done, head]}, "cache_control" in block))
    keys = [json.dumps(prefix, sort_keys=True) for prefix, _ in bounds]
    marks = [i for i, (_, mark) in enumerate(bounds) if mark]
    read = max((state.prompt_cache[keys[k]] for i in marks
                for k in range(max(0, i - 20), i + 1) if keys[k] in state.prompt_cache),
               default=0)
    written = 0
    for i in marks:
        prefix = bounds[i][0]
        tokens = measure_anthropic(state, {**prefix, "system": prefix["system"] or ""})
        if keys[i] not in state.prompt_cache:
            state.prompt_cache[keys[i]] = tokens
            written = max(written, tokens)
    return read, max(0, written - read)


def _system_text(system: Any) -> str:
    if isinstance(system, list):
        return "".join(b.get("text", "") for b in system)
    return system or ""


def _result_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return content or ""


# --- validation with the providers' rules ----------------------------------------------------


def _bad(message: str) -> Rejection:
    return Rejection(400, "invalid_request_error", message)


def validate_anthropic(body: dict[str, Any]) -> None:
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            raise _bad(f"{name}: Field required")
    messages = body["messages"]
    if not messages:
        raise _bad("messages: at least one message is required")
    if messages[0]["role"] != "user":
        raise _bad('messages: first message must use the "user" role')
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            raise _bad(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        if i and messages[i - 1]["role"] == role:
            raise _bad(f'messages: roles must alternate between "user" and "assistant", but '
                       f'found multiple "{role}" roles in a row')
        content = message["content"]
        if isinstance(content, str):
            if not content:
                raise _bad(f"messages.{i}: all messages must have non-empty content")
            continue
        if not content:
            raise _bad(f"messages.{i}: all messages must have non-empty content except for the "
                       "optional final assistant message")
        _validate_blocks(i, content)
        _validate_pairing(i, messages)


def _validate_blocks(i: int, blocks: list[dict[str, Any]]) -> None:
    seen_other = False
    for j, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "text" and not block.get("text"):
            raise _bad("messages: text content blocks must be non-empty")
        if kind == "tool_result" and seen_other:
            raise _bad(f"messages.{i}: tool_result blocks must come first in the content array")
        seen_other = seen_other or kind != "tool_result"
        if kind == "image":
            _validate_image(f"messages.{i}.content.{j}", block)


def _validate_image(where: str, block: dict[str, Any]) -> None:
    source = block.get("source") or {}
    if source.get("type") != "base64":
        raise _bad(f"{where}.image.source: Input tag '{source.get('type')}' is not supported")
    if source.get("media_type") not in ANTHROPIC_IMAGE_TYPES:
        raise _bad(f"{where}.image.source.base64.media_type: Input should be 'image/jpeg', "
                   "'image/png', 'image/gif' or 'image/webp'")
    try:
        data = base64.b64decode(source.get("data", ""), validate=True)
    except binascii.Error:
        raise _bad(f"{where}.image.source.base64.data: invalid base64 data") from None
    if len(data) > ANTHROPIC_MAX_IMAGE:
        raise _bad(f"{where}.image.source.base64: image exceeds 5 MB maximum: {len(data)} bytes "
                   f"> {ANTHROPIC_MAX_IMAGE} bytes")
    if max(_image_size(data)) > ANTHROPIC_MAX_SIDE:
        raise _bad(f"{where}.image.source.base64.data: At least one of the image dimensions "
                   f"exceed max allowed size: {ANTHROPIC_MAX_SIDE} pixels")


def _ids(message: dict[str, Any], kind: str, key: str) -> list[str]:
    content = message["content"]
    return [] if isinstance(content, str) else [b[key] for b in content if b["type"] == kind]


def _validate_pairing(i: int, messages: list[dict[str, Any]]) -> None:
    message = messages[i]
    if message["role"] == "assistant":
        calls = _ids(message, "tool_use", "id")
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        answered = set(_ids(nxt, "tool_result", "tool_use_id")) if nxt else set()
        missing = [c for c in calls if c not in answered]
        if missing:
            raise _bad(f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                       f"immediately after: {', '.join(missing)}. Each `tool_use` block must "
                       "have a corresponding `tool_result` block in the next message.")
        return
    previous = set(_ids(messages[i - 1], "tool_use", "id")) if i else set()
    for j, result in enumerate(_ids(message, "tool_result", "tool_use_id")):
        if result not in previous:
            raise _bad(f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                       f"`tool_result` blocks: {result}. Each `tool_result` block must have a "
                       "corresponding `tool_use` block in the previous message.")


def validate_openai(body: dict[str, Any]) -> None:
    if "model" not in body:
        raise _bad("you must provide a model parameter")
    messages = body.get("messages") or []
    if not messages:
        raise _bad("[] is too short - 'messages'")
    if "stream_options" in body and not body.get("stream"):
        raise _bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.")
    pending: list[str] = []
    calls: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("system", "developer", "user", "assistant", "tool"):
            raise _bad(f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', "
                       "'user', 'tool', and 'developer'.")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not calls:
                raise _bad("Invalid parameter: messages with role 'tool' must be a response to a "
                           "preceeding message with 'tool_calls'.")
            if call_id not in calls:
                raise _bad(f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in "
                           "'tool_calls' of previous message.")
            pending = [c for c in pending if c != call_id]
            continue
        if pending:
            raise _bad("An assistant message with 'tool_calls' must be followed by tool messages "
                       "responding to each 'tool_call_id'. The following tool_call_ids did not "
                       f"have response messages: {', '.join(pending)}")
        calls = {c["id"] for c in message.get("tool_calls") or []}
        pending = sorted(calls)
        _validate_openai_images(i, message)
    if pending:
        raise _bad("An assistant message with 'tool_calls' must be followed by tool messages "
                   "responding to each 'tool_call_id'. The following tool_call_ids did not "
                   f"have response messages: {', '.join(pending)}")


def _validate_openai_images(i: int, message: dict[str, Any]) -> None:
    content = message.get("content")
    for j, part in enumerate(content if isinstance(content, list) else []):
        if part.get("type") != "image_url":
            continue
        url = part["image_url"]["url"]
        head, _, data = url.partition(",")
        mime = head.removeprefix("data:").removesuffix(";base64")
        if mime not in ANTHROPIC_IMAGE_TYPES:
            raise Rejection(400, "invalid_request_error",
                            f"Invalid 'messages[{i}].content[{j}].image_url.url'. Expected a "
                            "base64-encoded data URL with an image MIME type, but got "
                            f"unsupported MIME type '{mime}'.", "invalid_image_format")
        if len(base64.b64decode(data)) > OPENAI_MAX_IMAGE:
            raise Rejection(400, "invalid_request_error", "Image exceeds the 20 MB limit.",
                            "image_too_large")


def validate_gemini(body: dict[str, Any]) -> None:
    """The rules of ``generateContent`` this project relies on (roles, parts, call answers)."""
    contents = body.get("contents")
    if not contents:
        raise Rejection(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents "
                        "is not specified")
    if "model" in body or "messages" in body:
        key = "model" if "model" in body else "messages"
        raise Rejection(400, "INVALID_ARGUMENT", f'Invalid JSON payload received. Unknown name '
                        f'"{key}": Cannot find field.')
    calls: list[str] = []
    for i, content in enumerate(contents):
        if content.get("role") not in ("user", "model"):
            raise Rejection(400, "INVALID_ARGUMENT", f"Please use a valid role: user, model. "
                            f"(contents[{i}])")
        parts = content.get("parts") or []
        if not parts:
            raise Rejection(400, "INVALID_ARGUMENT", f"* GenerateContentRequest.contents[{i}]"
                            ".parts: contents.parts must not be empty.")
        answers = [p["functionResponse"]["name"] for p in parts if "functionResponse" in p]
        if calls and sorted(answers) != sorted(calls):
            raise Rejection(400, "INVALID_ARGUMENT", "Please ensure that the number of function "
                            "response parts is equal to the number of function call parts of "
                            "the function call turn.")
        calls = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
        for part in parts:
            if "inlineData" in part and part["inlineData"].get("mimeType") not in (
                    ANTHROPIC_IMAGE_TYPES):
                raise Rejection(400, "INVALID_ARGUMENT", "Unsupported MIME type")


# --- the server --------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: ServerState

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hung up on a slow or dropped response are expected; stay quiet."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        state = self.server.state
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        hit = Hit(self.path, headers, body)
        with state.lock:
            state.hits.append(hit)
            hit.fault = state.faults.popleft() if state.faults else None
        anthropic = self.path.endswith("/v1/messages")
        if ":streamGenerateContent" in self.path:
            self._gemini(state, hit)
            return
        try:
            if hit.fault == "slow":
                state.stop.wait(state.slow_seconds)
            self._check(state, hit, raw, anthropic)
            hit.status = 200
            self._stream(state, hit, anthropic)
        except Rejection as r:
            hit.status = r.status
            self._reject(r, anthropic, state)

    def _gemini(self, state: ServerState, hit: Hit) -> None:
        model = self.path.split("/models/", 1)[1].split(":", 1)[0]
        try:
            if hit.fault in ("429", "500"):
                status = {"429": "RESOURCE_EXHAUSTED", "500": "INTERNAL"}[hit.fault]
                raise Rejection(int(hit.fault), status, f"injected {status}")
            if state.gemini_key is not None and hit.headers.get("x-goog-api-key") != (
                    state.gemini_key):
                raise Rejection(400, "INVALID_ARGUMENT",
                                "API key not valid. Please pass a valid API key.")
            if hit.body is None:
                raise Rejection(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")
            validate_gemini(hit.body)
            hit.measured = measure_gemini(state, hit.body, model)
            if hit.measured > state.limit:
                raise Rejection(400, "INVALID_ARGUMENT", f"The input token count "
                                f"({hit.measured}) exceeds the maximum number of tokens allowed "
                                f"({state.limit}).")
        except Rejection as r:
            hit.status = r.status
            data = json.dumps({"error": {"code": r.status, "message": r.message,
                                         "status": r.etype}}).encode()
            self.send_response(r.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        hit.status = 200
        last = hit.body["contents"][-1]["parts"]
        reply = "Answer to: " + " ".join(p.get("text", "") for p in last)[:40]
        chunks = [reply[i : i + 7] for i in range(0, len(reply), 7)]
        events = gemini_events(model, hit.measured, state.cache_read, chunks)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for n, event in enumerate(events):
            if hit.fault == "drop" and n == len(events) // 2:
                self.wfile.write(b"400\r\n" + event[:10])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _check(self, state: ServerState, hit: Hit, raw: bytes, anthropic: bool) -> None:
        fault = hit.fault
        if fault in ("429", "500", "529", "401"):
            etype = {"429": "rate_limit_error", "500": "api_error", "529": "overloaded_error",
                     "401": "authentication_error"}[fault]
            raise Rejection(int(fault), etype, f"injected {etype}")
        self._check_auth(state, hit, anthropic)
        if anthropic and len(raw) > state.max_body_bytes:
            raise Rejection(413, "request_too_large",
                            "Request exceeds the maximum allowed number of bytes.")
        if hit.body is None:
            raise _bad("There was an error parsing the body of your request as JSON")
        if anthropic:
            if "anthropic-version" not in hit.headers:
                raise _bad("anthropic-version: header is required")
            validate_anthropic(hit.body)
            hit.measured = measure_anthropic(state, hit.body)
            if state.prompt_cache is not None:
                hit.cache_read, hit.cache_write = cache_accounting(state, hit.body)
            if hit.measured > state.limit:
                raise _bad(f"prompt is too long: {hit.measured} tokens > {state.limit} maximum")
        else:
            validate_openai(hit.body)
            hit.measured = measure_openai(state, hit.body)
            if hit.measured > state.limit:
                raise Rejection(
                    400, "invalid_request_error",
                    f"This model's maximum context length is {state.limit} tokens. However, "
                    f"your messages resulted in {hit.measured} tokens. Please reduce the "
                    "length of the messages.", "context_length_exceeded")

    def _check_auth(self, state: ServerState, hit: Hit, anthropic: bool) -> None:
        if anthropic and state.anthropic_key is not None:
            if hit.headers.get("x-api-key") != state.anthropic_key:
                raise Rejection(401, "authentication_error", "invalid x-api-key")
        elif not anthropic and state.openai_key is not None:
            given = hit.headers.get("authorization", "").removeprefix("Bearer ")
            if given != state.openai_key:
                masked = f"{given[:3]}****{given[-4:]}" if len(given) > 8 else "****"
                raise Rejection(401, "invalid_request_error",
                                f"Incorrect API key provided: {masked}.", "invalid_api_key")

    def _reject(self, r: Rejection, anthropic: bool, state: ServerState) -> None:
        if anthropic:
            payload: dict[str, Any] = {"type": "error",
                                       "error": {"type": r.etype, "message": r.message}}
        else:
            payload = {"error": {"message": r.message, "type": r.etype,
                                 "param": "messages" if r.code else None, "code": r.code}}
        data = json.dumps(payload).encode()
        try:
            self.send_response(r.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            if r.status == 429:
                self.send_header("retry-after", state.retry_after)
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass

    # --- streaming ---------------------------------------------------------------------------

    def _stream(self, state: ServerState, hit: Hit, anthropic: bool) -> None:
        assert hit.body is not None and hit.measured is not None
        reply = (state.responder(hit.body, anthropic) if state.responder is not None
                 else reply_text(hit.body, anthropic))
        chunks = [reply[i : i + 7] for i in range(0, len(reply), 7)]
        cached = (hit.cache_read, hit.cache_write) if state.prompt_cache is not None else (
            state.cache_read, 0)
        events = (anthropic_events(hit.body, hit.measured, cached, chunks) if anthropic
                  else openai_events(hit.body, hit.measured, state.cache_read, chunks))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for n, event in enumerate(events):
            if hit.fault == "drop" and n == len(events) // 2:  # after some text went out
                self.wfile.write(b"400\r\n" + event[:10])  # a chunk cut short, then hang up
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def reply_text(body: dict[str, Any], anthropic: bool) -> str:
    """A deterministic answer that names the last user text (or the summary request)."""
    last = body["messages"][-1]
    content = last.get("content")
    if isinstance(content, list):
        content = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
    system = _system_text(body.get("system")) if anthropic else next(
        (m["content"] for m in body["messages"] if m["role"] == "system"), "")
    if isinstance(system, str) and "compress a conversation" in system:
        return "SUMMARY: the task, the decisions, the open threads and the files."
    return f"Answer to: {str(content or '')[:40]}"


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def anthropic_events(body: dict[str, Any], measured: int, cached: tuple[int, int],
                     chunks: list[str]) -> list[bytes]:
    cache_read, cache_write = cached
    usage = {"input_tokens": measured - cache_read - cache_write,
             "cache_creation_input_tokens": cache_write,
             "cache_read_input_tokens": cache_read, "output_tokens": 1}
    message = {"id": "msg_01", "type": "message", "role": "assistant", "model": body["model"],
               "content": [], "stop_reason": None, "usage": usage}
    out = [
        _sse("message_start", {"type": "message_start", "message": message}),
        _sse("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
        _sse("ping", {"type": "ping"}),
    ]
    out += [_sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": c}})
            for c in chunks]
    out += [
        _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _sse("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": len(chunks)}}),
        _sse("message_stop", {"type": "message_stop"}),
    ]
    return out


def openai_events(body: dict[str, Any], measured: int, cache_read: int, chunks: list[str]
                  ) -> list[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(data)}\n\n".encode()

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": c}) for c in chunks]
    out.append(chunk({}, "stop"))
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = {"prompt_tokens": measured, "completion_tokens": len(chunks),
                 "total_tokens": measured + len(chunks),
                 "prompt_tokens_details": {"cached_tokens": cache_read}}
        data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
                "model": body["model"], "choices": [], "usage": usage}
        out.append(f"data: {json.dumps(data)}\n\n".encode())
    out.append(b"data: [DONE]\n\n")
    return out


def gemini_events(model: str, measured: int, cache_read: int, chunks: list[str]) -> list[bytes]:
    """``streamGenerateContent?alt=sse``: one whole response per event, usage on each."""
    out = []
    for i, c in enumerate(chunks):
        last = i == len(chunks) - 1
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": c}]},
                                     "index": 0}
        if last:
            candidate["finishReason"] = "STOP"
        data = {"candidates": [candidate], "modelVersion": model,
                "usageMetadata": {"promptTokenCount": measured,
                                  "candidatesTokenCount": i + 1,
                                  "cachedContentTokenCount": cache_read}}
        out.append(f"data: {json.dumps(data)}\r\n\r\n".encode())
    return out


class ProviderServer:
    """The server on an ephemeral loopback port, run in a thread."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._httpd.state = state
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> ProviderServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.state.stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def trust_server(srv: ProviderServer, path: Path | None = None) -> None:
    """Name ``srv`` as the server each provider's key may go to, in the settings file."""
    settings = path or Path(os.environ["CONVO_CONFIG"])
    data = json.loads(settings.read_text(encoding="utf-8")) if settings.exists() else {}
    providers = data.setdefault("providers", {})
    for kind, url in (("anthropic", srv.url), ("openai", srv.url + "/v1"),
                      ("gemini", srv.url)):
        providers.setdefault(kind, {})["key_sent_to"] = url
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(data), encoding="utf-8")
