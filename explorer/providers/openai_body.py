"""The one Chat Completions encoder: ``send``, the preview and the export all use it (X1).

The path is first rewritten by :func:`answered_steps` (every call answered right after it);
``tool_calls`` ride on the assistant message and each is answered by a ``role: tool`` message.
Tool messages carry text only, so images a tool returned follow the tool messages of their
call in one user message. Images go as ``data:`` URLs with the ``detail`` the cost assumed;
images the API would refuse become text markers, and no more than the provider's limit travel.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from explorer.compaction.target import ImageRule
from explorer.formats.exporters.steps import (
    OPENING,
    Step,
    ToolIds,
    answered_steps,
    image_marker,
    tool_arguments,
    tool_name,
)
from explorer.providers.base import cap_images, image_media_type, sendable_or_marker
from explorer.tree.model import Message, Part

MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_IMAGE_SIDE = 16_000
MAX_IMAGES = 500  # per request (the source is in explorer.compaction.target.MAX_IMAGES)


def request_body(
    messages: Sequence[Message], model: str, max_tokens: int, *, compatible: bool = False,
    stream: bool = True, images: ImageRule | None = None, notes: list[str] | None = None,
) -> dict[str, Any]:
    """The request carrying ``messages``; OpenAI names the output cap
    ``max_completion_tokens``, compatible servers ``max_tokens``."""
    notes = notes if notes is not None else []
    limit = images.max_images if images is not None else MAX_IMAGES
    detail = images.detail if images is not None else None
    body: dict[str, Any] = {
        "model": model,
        "messages": chat_messages(cap_images(messages, limit, notes), notes, detail),
    }
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    body["max_tokens" if compatible else "max_completion_tokens"] = max_tokens
    return body


def chat_messages(path: Sequence[Message], notes: list[str], detail: str | None = None
                  ) -> list[dict[str, Any]]:
    """Chat Completions messages: tool answers right after their calls."""
    ids = ToolIds()
    messages: list[dict[str, Any]] = []
    for step in answered_steps(path, notes):
        if step.results:
            messages.extend(_results(step, ids, detail))
        elif step.role == "assistant":
            messages.extend(_assistant(step, ids))
        else:
            content = _content(step, detail)
            if content:
                messages.append({"role": step.role, "content": content})
    if not messages:
        notes.append("the path holds nothing to send; added a user message saying so")
        messages.append({"role": "user", "content": OPENING})
    return messages


def _assistant(step: Step, ids: ToolIds) -> list[dict[str, Any]]:
    texts = [p.text for p in step.parts if p.kind == "text" and p.text.strip()]
    texts += [image_marker(p) for p in step.parts if p.kind == "image"]
    calls = [
        {"id": ids(p.tool_use_id), "type": "function",
         "function": {"name": tool_name(p.tool_name), "arguments": _arguments_text(p.text)}}
        for p in step.parts if p.kind == "tool_use"
    ]
    if not texts and not calls:
        return []
    message: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) or None}
    if calls:
        message["tool_calls"] = calls
    return [message]


def _results(step: Step, ids: ToolIds, detail: str | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    by_call: dict[str, dict[str, Any]] = {}
    images: list[dict[str, Any]] = []
    for p in step.parts:
        key = ids(p.tool_use_id)
        message = by_call.get(key)
        if message is None:
            message = {"role": "tool", "tool_call_id": key, "content": ""}
            by_call[key] = message
            out.append(message)
        text = p.text
        if p.data is not None:
            image = _image(p, True, detail)
            sent = image["type"] == "image_url"
            text = image_marker(p) + (" (attached below)" if sent else "")
            if sent:
                images.append(image)
        if p.is_error and not message["content"]:
            text = f"Error: {text}"
        message["content"] = "\n".join(t for t in (message["content"], text) if t)
    for message in out:
        message["content"] = message["content"] or "[no output]"
    if images:
        out.append({"role": "user", "content": [
            {"type": "text", "text": "Images returned by the tool calls above:"}, *images]})
    return out


def _content(step: Step, detail: str | None) -> str | list[dict[str, Any]]:
    """Text alone as a string; with images, a list of text and ``image_url`` parts."""
    parts: list[dict[str, Any]] = []
    for p in step.parts:
        if p.kind == "text" and p.text.strip():
            parts.append({"type": "text", "text": p.text})
        elif p.kind == "image":
            parts.append(_image(p, step.role == "user", detail))
    if all(part["type"] == "text" for part in parts):
        return "\n\n".join(part["text"] for part in parts)
    return parts


def _image(p: Part, allowed: bool, detail: str | None) -> dict[str, Any]:
    part = sendable_or_marker(p, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, allowed)
    if "image_left_out" in part.meta:  # a marker saying why it was not sent
        return {"type": "text", "text": part.text}
    data = base64.b64encode(part.data or b"").decode("ascii")
    url: dict[str, Any] = {"url": f"data:{image_media_type(part)};base64,{data}"}
    if detail is not None:  # the detail the cost assumed, so the provider bills what was shown
        url["detail"] = detail
    return {"type": "image_url", "image_url": url}


def _arguments_text(text: str) -> str:
    """Arguments as the JSON text of an object, as Chat Completions expects."""
    return json.dumps(tool_arguments(text), ensure_ascii=False)
