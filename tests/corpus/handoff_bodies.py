"""A request body in any of the four wire formats, as one flat list of events.

``user`` and ``assistant`` events carry text; ``call`` and ``result`` events carry the
call id, so a check can see each call answered before the next prompt whatever the
provider.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.corpus.fake_model.wire import text_of


@dataclass
class Event:
    kind: str  # "user", "assistant", "call", "result"
    text: str


def events(path: str, body: dict[str, Any]) -> list[Event]:
    if path.split("?")[0].rstrip("/").endswith("/messages"):
        return _anthropic(body)
    if "/chat/completions" in path:
        return _chat(body)
    if path.split("?")[0].rstrip("/").endswith("/responses"):
        return _responses(body)
    if "generatecontent" in path.lower():
        return _gemini(body)
    return []


def _anthropic(body: dict[str, Any]) -> list[Event]:
    out: list[Event] = []
    for m in body.get("messages") or []:
        content = m.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for b in blocks:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                out.append(Event("call", str(b.get("id"))))
            elif b.get("type") == "tool_result":
                out.append(Event("result", str(b.get("tool_use_id"))))
            elif b.get("type") == "text":
                out.append(Event("user" if m.get("role") == "user" else "assistant",
                                 str(b.get("text") or "")))
    return out


def _chat(body: dict[str, Any]) -> list[Event]:
    out: list[Event] = []
    for m in body.get("messages") or []:
        role = m.get("role")
        if role == "tool":
            out.append(Event("result", str(m.get("tool_call_id"))))
            continue
        text = text_of(m.get("content"))
        if role in ("user", "assistant") and text:
            out.append(Event(role, text))
        for call in m.get("tool_calls") or []:
            out.append(Event("call", str(call.get("id"))))
    return out


def _responses(body: dict[str, Any]) -> list[Event]:
    out: list[Event] = []
    items = body.get("input")
    for item in items if isinstance(items, list) else []:
        kind = item.get("type", "message")
        if kind.endswith("_call"):
            out.append(Event("call", str(item.get("call_id"))))
        elif kind.endswith("_call_output"):
            out.append(Event("result", str(item.get("call_id"))))
        elif kind == "message" and item.get("role") in ("user", "assistant"):
            out.append(Event(item["role"], text_of(item.get("content"))))
    return out


def _gemini(body: dict[str, Any]) -> list[Event]:
    out: list[Event] = []
    for content in body.get("contents") or []:
        role = "user" if content.get("role", "user") == "user" else "assistant"
        for part in content.get("parts") or []:
            if "functionCall" in part:
                out.append(Event("call", str(part["functionCall"].get("id"))))
            elif "functionResponse" in part:
                out.append(Event("result", str(part["functionResponse"].get("id"))))
            elif part.get("text") and not part.get("thought"):
                out.append(Event(role, str(part["text"])))
    return out
