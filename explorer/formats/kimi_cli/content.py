"""Kimi CLI wire payloads as parts: content parts (text, thinking, media by URL), tool calls
and what a tool returned."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from explorer.formats.common import as_text, image_part
from explorer.tree.model import Part

_DATA_URL = re.compile(r"data:([\w/+.-]+);base64,(.*)", re.S)


def content_parts(value: object, where: str, notes: list[str],
                  ignored: Counter[str]) -> list[Part]:
    """A user input or a ``ContentPart`` payload: a string, one part, or a list of parts."""
    if isinstance(value, str):
        return [Part("text", value)]
    items = value if isinstance(value, list) else [value]
    parts: list[Part] = []
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(kind, str):
            ignored["part:<no type>"] += 1
            notes.append(f"{where}: a content part without a type skipped")
        elif kind == "text":
            parts.append(Part("text", as_text(item.get("text"))))
        elif kind == "think":
            meta = {"encrypted": item["encrypted"]} if item.get("encrypted") else {}
            parts.append(Part("thinking", as_text(item.get("think")), meta=meta))
        elif kind in ("image_url", "audio_url", "video_url"):
            parts.append(_media(kind, item.get(kind), where, notes))
        else:
            ignored[f"part:{kind}"] += 1
            notes.append(f"{where}: a content part of type {kind!r} skipped")
    return parts


def _media(kind: str, ref: object, where: str, notes: list[str]) -> Part:
    """An image sent inline becomes an image; anything else by URL stays a visible link."""
    url = as_text(ref.get("url")) if isinstance(ref, dict) else ""
    found = _DATA_URL.match(url)
    if kind == "image_url" and found:
        return image_part(found.group(2), found.group(1), notes, where)
    shown = url if not found else f"{found.group(1)}, {len(found.group(2))} base64 characters"
    return Part("text", f"[{kind.removesuffix('_url')}: {shown}]", meta={"kimi_part": kind})


def call_part(payload: dict[str, Any]) -> Part:
    """A ``ToolCall``: the arguments as the model wrote them (a JSON string)."""
    function = payload.get("function")
    function = function if isinstance(function, dict) else {}
    arguments = function.get("arguments")
    return Part("tool_use", arguments if isinstance(arguments, str) else as_text(arguments or {}),
                tool_name=as_text(function.get("name")) or None,
                tool_use_id=as_text(payload.get("id")) or None)


def result_part(payload: dict[str, Any], tool_name: str | None, where: str, notes: list[str],
                ignored: Counter[str]) -> list[Part]:
    """A ``ToolResult``: the tool's output, or its message when it returned none (a write,
    an error); the message is kept beside the output, and inline images follow it."""
    value = payload.get("return_value")
    value = value if isinstance(value, dict) else {}
    output, message = value.get("output"), as_text(value.get("message"))
    extra: list[Part] = []
    if isinstance(output, list):
        pieces = content_parts(output, where, notes, ignored)
        text = "\n".join(p.text for p in pieces if p.kind == "text")
        extra = [p for p in pieces if p.kind != "text"]
    else:
        text = as_text(output)
    meta: dict[str, Any] = {"message": message} if message else {}
    display = value.get("display")
    if isinstance(display, list) and display:
        meta["display"] = display
    result = Part("tool_result", text if text.strip() else message, tool_name=tool_name,
                  tool_use_id=as_text(payload.get("tool_call_id")) or None,
                  is_error=value.get("is_error") is True, meta=meta)
    return [result, *extra]
