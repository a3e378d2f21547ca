"""OpenAI chat completions and Responses, streamed (server-sent events) or not."""

from __future__ import annotations

import itertools
import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.corpus.fake_model.script import Call, Exchange, Text, reply
from tests.corpus.fake_model.wire import (
    USAGE_IN,
    USAGE_OUT,
    event,
    result_text,
    send_json,
    start_events,
    text_of,
)

CHAT_USAGE = {"prompt_tokens": USAGE_IN, "completion_tokens": USAGE_OUT,
              "total_tokens": USAGE_IN + USAGE_OUT}


def _chat_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return (fmt.get("json_schema") or {}).get("schema") or {}
    return {} if fmt.get("type") == "json_object" else None


def chat_exchange(body: dict[str, Any]) -> Exchange:
    results: list[str] = []
    prompt = ""
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "tool":
            results.insert(0, result_text(m.get("content")))
        elif m.get("role") == "user":
            prompt = text_of(m.get("content"))
            break
    tools = []
    for t in body.get("tools") or []:
        fn = t.get("function", t) if isinstance(t, dict) else {}
        tools.append({"name": fn.get("name"), "schema": fn.get("parameters")})
    return Exchange(prompt, results, tools, _chat_schema(body))


def chat(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    said = reply(chat_exchange(body))
    message: dict[str, Any] = {"role": "assistant",
                               "content": said.text if isinstance(said, Text) else said.preamble}
    if isinstance(said, Call):
        message["tool_calls"] = [{"id": f"call_{time.time_ns() % 10**12}", "type": "function",
                                  "function": {"name": said.name,
                                               "arguments": json.dumps(said.args)}}]
    finish = "tool_calls" if isinstance(said, Call) else "stop"
    base = {"id": f"chatcmpl-{time.time_ns()}", "created": int(time.time()),
            "model": body.get("model")}
    if not body.get("stream"):
        send_json(h, 200, {**base, "object": "chat.completion", "usage": CHAT_USAGE,
                           "choices": [{"index": 0, "message": message,
                                        "finish_reason": finish}]})
        return
    start_events(h)

    def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
        event(h, {**base, "object": "chat.completion.chunk",
                  "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    chunk({"role": "assistant", "content": message["content"]})
    for i, call in enumerate(message.get("tool_calls") or []):
        chunk({"tool_calls": [{"index": i, **call}]})
    chunk({}, finish)
    event(h, {**base, "object": "chat.completion.chunk", "choices": [], "usage": CHAT_USAGE})
    h.wfile.write(b"data: [DONE]\n\n")
    h.wfile.flush()


def responses_exchange(body: dict[str, Any]) -> Exchange:
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    results: list[str] = []
    prompt = ""
    for item in reversed(items or []):
        kind = item.get("type", "message")
        if kind.endswith("_call_output"):
            out = item.get("output")
            results.insert(0, result_text(out) if not isinstance(out, str) else out)
        elif kind == "message" and item.get("role") == "user":
            prompt = text_of(item.get("content"))
            break
    tools = [{"name": t.get("name"), "schema": t.get("parameters")}
             for t in body.get("tools") or [] if isinstance(t, dict)]
    fmt = ((body.get("text") or {}).get("format") or {})
    schema = fmt.get("schema") if fmt.get("type") == "json_schema" else None
    return Exchange(prompt, results, tools, schema)


def responses(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
    said = reply(responses_exchange(body))
    seq = itertools.count()
    now = time.time_ns()
    base = {"id": f"resp_{now}", "object": "response", "created_at": int(time.time()),
            "model": body.get("model"), "output": []}

    def ev(name: str, data: dict[str, Any]) -> None:
        event(h, {"type": name, "sequence_number": next(seq), **data}, name)
    start_events(h)
    ev("response.created", {"response": {**base, "status": "in_progress"}})
    words = said.text if isinstance(said, Text) else said.preamble
    part = {"type": "output_text", "text": words, "annotations": []}
    iid = f"msg_{now}"
    message = {"type": "message", "id": iid, "role": "assistant", "status": "completed",
               "content": [part]}
    ev("response.output_item.added", {"output_index": 0,
                                      "item": {**message, "status": "in_progress",
                                               "content": []}})
    ev("response.content_part.added", {"item_id": iid, "output_index": 0, "content_index": 0,
                                       "part": {**part, "text": ""}})
    ev("response.output_text.delta", {"item_id": iid, "output_index": 0, "content_index": 0,
                                      "delta": words})
    ev("response.output_text.done", {"item_id": iid, "output_index": 0, "content_index": 0,
                                     "text": words})
    ev("response.content_part.done", {"item_id": iid, "output_index": 0, "content_index": 0,
                                      "part": part})
    ev("response.output_item.done", {"output_index": 0, "item": message})
    output: list[dict[str, Any]] = [message]
    if isinstance(said, Call):
        args = json.dumps(said.args)
        item = {"type": "function_call", "id": f"fc_{now}", "call_id": f"call_{now % 10**12}",
                "name": said.name, "arguments": args, "status": "completed"}
        ev("response.output_item.added", {"output_index": 1,
                                          "item": {**item, "arguments": "",
                                                   "status": "in_progress"}})
        ev("response.function_call_arguments.delta", {"item_id": item["id"], "output_index": 1,
                                                      "delta": args})
        ev("response.function_call_arguments.done", {"item_id": item["id"], "output_index": 1,
                                                     "arguments": args})
        ev("response.output_item.done", {"output_index": 1, "item": item})
        output.append(item)
    usage = {"input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": USAGE_OUT, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": USAGE_IN + USAGE_OUT}
    ev("response.completed", {"response": {**base, "status": "completed", "output": output,
                                           "usage": usage}})
