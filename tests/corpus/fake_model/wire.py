"""Bits every wire format shares: text out of content blocks, server-sent events."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

USAGE_IN, USAGE_OUT = 1234, 9


def text_of(content: Any) -> str:
    """The words in a message's content, whichever way a provider spells the blocks."""
    if isinstance(content, str):
        return content
    out: list[str] = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") in ("text", "input_text", "output_text") or (
                "text" in block and "type" not in block):
            out.append(str(block.get("text") or ""))
    return "\n".join(out)


def result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return json.dumps(content)
    return " ".join(str(b.get("text") or "") if isinstance(b, dict) else str(b)
                    for b in content or [])


def send_json(h: BaseHTTPRequestHandler, code: int, obj: Any) -> None:
    body = json.dumps(obj).encode()
    h.send_response(code)
    h.send_header("content-type", "application/json")
    h.send_header("content-length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def start_events(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("content-type", "text/event-stream")
    h.send_header("cache-control", "no-cache")
    h.send_header("connection", "close")
    h.end_headers()
    h.close_connection = True


def event(h: BaseHTTPRequestHandler, data: Any, name: str | None = None) -> None:
    head = f"event: {name}\n" if name else ""
    h.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
    h.wfile.flush()
