"""Anthropic Messages: ``POST …/messages``, streamed or not, refusing unpaired tool calls;
parallel calls and a signed thinking block when the script asks for them."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.corpus.fake_model.script import Call, Exchange, reply
from tests.corpus.fake_model.wire import (
    USAGE_IN,
    USAGE_OUT,
    event,
    result_text,
    send_json,
    start_events,
    text_of,
)


def pairing_error(messages: list[dict[str, Any]]) -> str | None:
    """The real API's 400 for a tool_use without its result right after (or the reverse)."""
    def blocks(i: int) -> list[dict[str, Any]]:
        if 0 <= i < len(messages) and isinstance(messages[i].get("content"), list):
            return [b for b in messages[i]["content"] if isinstance(b, dict)]
        return []
    for i in range(len(messages)):
        uses = [b["id"] for b in blocks(i) if b.get("type") == "tool_use"]
        answered = {b.get("tool_use_id") for b in blocks(i + 1) if b.get("type") == "tool_result"}
        missing = [u for u in uses if u not in answered]
        if missing:
            return (f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(missing)}")
        asked = {b.get("id") for b in blocks(i - 1) if b.get("type") == "tool_use"}
        for b in blocks(i):
            if b.get("type") == "tool_result" and b.get("tool_use_id") not in asked:
                return (f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` "
                        f"blocks: {b.get('tool_use_id')}")
    return None


def exchange(body: dict[str, Any]) -> Exchange:
    messages = body.get("messages") or []
    results: list[str] = []
    prompt = ""
    for m in reversed(messages):
        content = m.get("content")
        blocks = content if isinstance(content, list) else []
        tr = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        if m.get("role") == "user" and not tr:
            prompt = text_of(content)
            break
        results[:0] = [result_text(b.get("content")) for b in tr]
    tools = [{"name": t.get("name"), "schema": t.get("input_schema")}
             for t in body.get("tools") or [] if isinstance(t, dict)]
    return Exchange(prompt, results, tools)


def answer(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    error = pairing_error(body.get("messages") or [])
    if error:
        send_json(h, 400, {"type": "error",
                           "error": {"type": "invalid_request_error", "message": error}})
        return
    said = reply(exchange(body))
    content: list[dict[str, Any]] = []
    if said.thinking is not None:  # a request that asks for it omitted gets the signature
        shown = (body.get("thinking") or {}).get("display") != "omitted"
        content.append({"type": "thinking", "thinking": said.thinking if shown else "",
                        "signature": f"fake-signature-{time.time_ns()}"})
    if isinstance(said, Call):
        now = time.time_ns()
        content.append({"type": "text", "text": said.preamble})
        content += [{"type": "tool_use", "id": f"toolu_{(now + i) % 10**12:012d}",
                     "name": c.name, "input": c.args} for i, c in enumerate([said, *said.also])]
        stop = "tool_use"
    else:
        content.append({"type": "text", "text": said.text})
        stop = "end_turn"
    usage = {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    mid = f"msg_{time.time_ns()}"
    if not body.get("stream"):
        send_json(h, 200, {"id": mid, "type": "message", "role": "assistant",
                           "model": body.get("model"), "content": content,
                           "stop_reason": stop, "stop_sequence": None, "usage": usage})
        return
    _stream(h, body, mid, content, stop, usage)


def _stream(h: BaseHTTPRequestHandler, body: dict[str, Any], mid: str,
            content: list[dict[str, Any]], stop: str, usage: dict[str, int]) -> None:
    start_events(h)
    message = {"id": mid, "type": "message", "role": "assistant", "model": body.get("model"),
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {**usage, "output_tokens": 1}}
    event(h, {"type": "message_start", "message": message}, "message_start")
    for i, block in enumerate(content):
        deltas: list[dict[str, Any]]
        if block["type"] == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": block["thinking"]}
                      ] if block["thinking"] else []
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif block["type"] == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        else:
            start = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        event(h, {"type": "content_block_start", "index": i, "content_block": start},
              "content_block_start")
        for delta in deltas:
            event(h, {"type": "content_block_delta", "index": i, "delta": delta},
                  "content_block_delta")
        event(h, {"type": "content_block_stop", "index": i}, "content_block_stop")
    event(h, {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
              "usage": {"output_tokens": USAGE_OUT}}, "message_delta")
    event(h, {"type": "message_stop"}, "message_stop")
