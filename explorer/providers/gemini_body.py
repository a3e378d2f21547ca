"""The one Gemini ``generateContent`` encoder: ``send``, the preview and the export all use it.

The model is named in the URL (``/v1beta/models/{model}:streamGenerateContent``), not in the
body; system text goes to ``systemInstruction``; roles are ``user`` and ``model``; images
travel as ``inlineData`` (base64 with a MIME type); a tool call is a ``functionCall`` part
answered by a ``functionResponse`` part in the next user turn, matched by name. The path is
first rewritten by :func:`answered_steps`, so every call is answered right after it.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from explorer.compaction.target import ImageRule
from explorer.formats.exporters.steps import OPENING, answered_steps, tool_arguments, tool_name
from explorer.providers.base import cap_images, image_media_type, sendable_or_marker
from explorer.tree.model import Message, Part

# Inline data is bounded by the 20 MB request size
# (https://ai.google.dev/gemini-api/docs/image-understanding, "Passing images inline").
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_IMAGE_SIDE = 16_000
MAX_IMAGES = 3600  # per request (the source is in explorer.compaction.target.MAX_IMAGES)


def request_body(
    messages: Sequence[Message], max_tokens: int, *, images: ImageRule | None = None,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """The ``generateContent`` body for ``messages`` (streaming is chosen by the URL)."""
    notes = notes if notes is not None else []
    limit = images.max_images if images is not None else MAX_IMAGES
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    names: dict[str | None, str] = {}
    for step in answered_steps(cap_images(messages, limit, notes), notes):
        texts = [p.text for p in step.parts if p.kind == "text" and p.text.strip()]
        if step.role == "system" and not contents:
            system.extend(texts)
            continue
        role = "model" if step.role == "assistant" else "user"
        parts = [_part(p, names, role == "user") for p in step.parts if _sendable(p)]
        if step.role == "system":
            parts = [{"text": f"[system]\n{t}"} for t in texts]
        if not parts:
            continue
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})
    if not contents or contents[0]["role"] != "user":
        notes.append("the path does not open with a user message; added one saying so")
        contents.insert(0, {"role": "user", "parts": [{"text": OPENING}]})
    config: dict[str, Any] = {"maxOutputTokens": max_tokens}
    resolution = images.detail if images is not None else None
    if resolution and any("inlineData" in part for c in contents for part in c["parts"]):
        # the media resolution the flat price assumed (Gemini 3), so the bill matches it
        config["mediaResolution"] = f"MEDIA_RESOLUTION_{resolution.upper()}"
    body: dict[str, Any] = {"contents": contents, "generationConfig": config}
    if system:
        body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    return body


def _sendable(p: Part) -> bool:
    return p.kind in ("tool_use", "tool_result", "image") or (
        p.kind == "text" and bool(p.text.strip()))


def _part(p: Part, names: dict[str | None, str], user: bool) -> dict[str, Any]:
    if p.kind == "tool_use":
        name = tool_name(p.tool_name)
        names[p.tool_use_id] = name
        return {"functionCall": {"name": name, "args": tool_arguments(p.text)}}
    if p.kind == "tool_result":
        key = "error" if p.is_error else "content"
        return {"functionResponse": {"name": names.get(p.tool_use_id, "tool"),
                                     "response": {key: p.text}}}
    if p.kind == "image":
        part = sendable_or_marker(p, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, user)
        if "image_left_out" in part.meta:  # a marker saying why it was not sent
            return {"text": part.text}
        data = base64.b64encode(part.data or b"").decode("ascii")
        return {"inlineData": {"mimeType": image_media_type(part), "data": data}}
    return {"text": p.text}
