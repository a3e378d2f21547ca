"""Google's Generative Language API (``generateContent``): request bodies in its own shape.

The model is named in the URL (``/v1beta/models/{model}:streamGenerateContent``), not in the
body; system text goes to ``systemInstruction``; roles are ``user`` and ``model``; images
travel as ``inlineData`` (base64 with a MIME type); a tool call is a ``functionCall`` part
answered by a ``functionResponse`` part in the next user turn, matched by name.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from explorer.compaction.target import ImageRule
from explorer.providers.anthropic import tool_input
from explorer.providers.base import (
    ChatTurn,
    cap_images,
    image_media_type,
    image_or_marker,
    normalize,
)
from explorer.tree.model import Message, Part

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
# Inline data is limited by the 20 MB request size; a page is far below it.
# (https://ai.google.dev/gemini-api/docs/image-understanding, "Passing images inline")
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_IMAGE_SIDE = 16_000


def _part(p: Part, names: dict[str | None, str]) -> dict[str, Any]:
    if p.kind == "image":
        p = image_or_marker(p, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE)
    if p.kind == "image":
        data = base64.b64encode(p.data or b"").decode("ascii")
        return {"inlineData": {"mimeType": image_media_type(p), "data": data}}
    if p.kind == "tool_use":
        name = p.tool_name or "tool"
        names[p.tool_use_id] = name
        return {"functionCall": {"name": name, "args": tool_input(p.text)}}
    if p.kind == "tool_result":
        name = names.get(p.tool_use_id, "tool")
        key = "error" if p.is_error else "content"
        return {"functionResponse": {"name": name, "response": {key: p.text}}}
    return {"text": p.text}


def contents(turns: Sequence[ChatTurn]) -> list[dict[str, Any]]:
    names: dict[str | None, str] = {}
    return [{"role": "model" if t.role == "assistant" else "user",
             "parts": [_part(p, names) for p in t.parts]} for t in turns]


def request_body(
    messages: Sequence[Message], max_tokens: int, *, images: ImageRule | None = None,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """The ``generateContent`` body for ``messages`` (streaming is chosen by the URL)."""
    limit = images.max_images if images is not None else None
    system, turns = normalize(cap_images(messages, limit, notes))
    body: dict[str, Any] = {"contents": contents(turns),
                            "generationConfig": {"maxOutputTokens": max_tokens}}
    if system:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    return body
