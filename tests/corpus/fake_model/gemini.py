"""Gemini ``generateContent`` and ``streamGenerateContent`` (``alt=sse``)."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.corpus.fake_model.script import Call, Exchange, reply
from tests.corpus.fake_model.wire import USAGE_IN, USAGE_OUT, send_json, start_events


def exchange(body: dict[str, Any]) -> Exchange:
    results: list[str] = []
    prompt = ""
    for content in reversed(body.get("contents") or []):
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
        answers = [p["functionResponse"] for p in parts if "functionResponse" in p]
        if answers:
            results[:0] = [json.dumps(a.get("response")) for a in answers]
            continue
        if content.get("role", "user") == "user":
            prompt = "\n".join(str(p.get("text", "")) for p in parts if "text" in p)
            break
    tools = []
    for group in body.get("tools") or []:
        for fn in group.get("functionDeclarations") or group.get("function_declarations") or []:
            schema = fn.get("parametersJsonSchema") or fn.get("parameters") or {}
            tools.append({"name": fn.get("name"), "schema": _lower_types(schema)})
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema is None and config.get("responseMimeType") == "application/json":
        schema = {}
    return Exchange(prompt, results, tools, _lower_types(schema) if schema is not None else None)


def _lower_types(schema: Any) -> Any:
    """Gemini's older schemas say ``"type": "STRING"``; the script reads JSON Schema."""
    if isinstance(schema, dict):
        return {k: (v.lower() if k == "type" and isinstance(v, str) else _lower_types(v))
                for k, v in schema.items()}
    if isinstance(schema, list):
        return [_lower_types(v) for v in schema]
    return schema


def answer(h: BaseHTTPRequestHandler, body: dict[str, Any], stream: bool) -> None:
    said = reply(exchange(body))
    if isinstance(said, Call):
        parts: list[dict[str, Any]] = [{"text": said.preamble},
                                       {"functionCall": {"name": said.name, "args": said.args}}]
    else:
        parts = [{"text": said.text}]
    resp = {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": USAGE_IN, "candidatesTokenCount": USAGE_OUT,
                              "totalTokenCount": USAGE_IN + USAGE_OUT},
            "modelVersion": body.get("model") or "fake-gemini"}
    if not stream:
        send_json(h, 200, resp)
        return
    start_events(h)
    h.wfile.write(f"data: {json.dumps(resp)}\r\n\r\n".encode())
    h.wfile.flush()
