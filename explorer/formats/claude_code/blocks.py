"""Claude Code content blocks and entry fields turned into parts and plain values.

Every accessor here accepts whatever a damaged line holds (wrong types, missing
keys) and answers with ``None`` or a note instead of raising: one odd block must
not cost the rest of a transcript.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from datetime import datetime
from typing import Any

import msgspec

from explorer.tree.model import Part, Usage

LIGHT_FIELDS = frozenset({"isSidechain", "isMeta", "isCompactSummary", "agentId"})
"""Line metadata a light message keeps: what shaping the tree and titling it read."""
TOOL_RESULT_META_LIMIT = 4000
"""Characters of ``toolUseResult`` kept in metadata; the full output is already a part."""


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def parse_timestamp(value: Any) -> float | None:
    """ISO 8601 (``2025-07-01T10:00:00.000Z``) or epoch milliseconds → epoch seconds."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            seconds = float(value)
        except OverflowError:
            return None
        if not math.isfinite(seconds):
            return None
        return seconds / 1000.0 if seconds > 1e11 else seconds
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


_USAGE_NAMES = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_input_tokens", "cache_read_tokens"),
    ("cache_creation_input_tokens", "cache_write_tokens"),
)


def usage_from(value: Any) -> Usage | None:
    """The measured token counts of one API response, if any are integers (a plain loop:
    this runs for every line of a response read, twice for a huge session)."""
    if not isinstance(value, dict):
        return None
    counts: dict[str, int] = {}
    for theirs, ours in _USAGE_NAMES:
        count = value.get(theirs)
        if isinstance(count, int) and count is not True and count is not False:
            counts[ours] = count
    return Usage(**counts) if counts else None


def content_parts(content: Any, *, calls_text: bool = True) -> tuple[list[Part], list[str]]:
    """Parts for a message's ``content`` (a string or a list of blocks), plus problems.

    ``calls_text=False``: a tool call's input is not written out as JSON (its part's text
    is empty), for a light pass that drops the text anyway (a tenth of its time)."""
    if isinstance(content, str):
        return ([Part("text", content)] if content else []), []
    if not isinstance(content, list):
        return [], [f"content is a {type(content).__name__}, not text or blocks"]
    parts: list[Part] = []
    problems: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(Part("text", block))
        elif isinstance(block, dict):
            parts.extend(_block_parts(block, calls_text))
        else:
            problems.append(f"skipped a content block that is a {type(block).__name__}")
    return parts, problems


def _block_parts(block: dict[str, Any], calls_text: bool = True) -> list[Part]:
    kind = block.get("type")
    if kind == "text":
        return [Part("text", as_str(block.get("text")) or "")]
    if kind == "thinking":
        meta = {"signature": block["signature"]} if as_str(block.get("signature")) else {}
        return [Part("thinking", as_str(block.get("thinking")) or "", meta=meta)]
    if kind == "redacted_thinking":
        return [Part("thinking", "", meta={"redacted": True, "data": as_str(block.get("data"))})]
    if kind in ("tool_use", "server_tool_use"):
        return [_tool_use(block, text=calls_text)]
    if kind == "tool_result":
        return _tool_result(block)
    if kind == "image":
        return [image_part(block)]
    return [Part("text", _json_text(block), meta={"block_type": str(kind)})]


def _tool_use(block: dict[str, Any], text: bool = True) -> Part:
    meta: dict[str, Any] = {"server": True} if block.get("type") == "server_tool_use" else {}
    return Part(
        "tool_use",
        _json_text(block.get("input", {})) if text else "",
        tool_name=as_str(block.get("name")),
        tool_use_id=as_str(block.get("id")),
        meta=meta,
    )


def _tool_result(block: dict[str, Any]) -> list[Part]:
    """A result's text in one part; each image it returned in a further result part.

    Images stay ``tool_result`` parts (with ``data`` and ``media_type``) so that a
    message of tool output is still recognised as tool output and not as a prompt.
    """
    use_id = as_str(block.get("tool_use_id"))
    is_error = block.get("is_error") is True
    content = block.get("content")
    texts: list[str] = []
    images: list[Part] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text":
                texts.append(as_str(item.get("text")) or "")
            elif isinstance(item, dict) and item.get("type") == "image":
                images.append(image_part(item))
            else:
                texts.append(_json_text(item))
    elif content is not None:
        texts.append(_json_text(content))
    first = Part("tool_result", "\n".join(texts), tool_use_id=use_id, is_error=is_error)
    extra = [
        Part(
            "tool_result",
            img.text,
            tool_use_id=use_id,
            is_error=is_error,
            data=img.data,
            media_type=img.media_type,
            meta={**img.meta, "image": True},
        )
        for img in images
    ]
    return [first, *extra]


def image_part(block: dict[str, Any]) -> Part:
    """An image block: base64 data becomes bytes; a URL source is kept as metadata."""
    source = as_dict(block.get("source"))
    media_type = as_str(source.get("media_type"))
    if source.get("type") == "url":
        return Part("image", media_type=media_type, meta={"url": as_str(source.get("url"))})
    data = as_str(source.get("data"))
    if data is None:
        return Part("text", "[image without data]", meta={"block_type": "image"})
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        note = f"[image could not be decoded: {exc}]"
        return Part("text", note, meta={"block_type": "image"})
    return Part("image", data=raw, media_type=media_type or "application/octet-stream")


_COMPACT = msgspec.json.Encoder().encode


def tool_use_result_meta(value: Any) -> Any:
    """``toolUseResult`` for metadata, shortened when its JSON is large.

    Most are small: one compact encoding tells so without writing the text out. Its
    ``json.dumps`` text is at most three times as long as the compact bytes (a separator
    gains a space, an escape or a float's exponent a few characters, each over at least
    one byte), so a third of the limit is enough."""
    try:
        if 3 * len(_COMPACT(value)) <= TOOL_RESULT_META_LIMIT:
            return value
    except (TypeError, ValueError, UnicodeError, OverflowError, RecursionError):
        pass  # (what msgspec refuses is measured as before)
    text = _json_text(value)
    if len(text) <= TOOL_RESULT_META_LIMIT:
        return value
    return {"truncated": True, "chars": len(text), "head": text[:TOOL_RESULT_META_LIMIT]}


_TEXT_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)
"""What ``json.dumps(value, ensure_ascii=False, default=str)`` makes, without a new
encoder for each of a session's tool inputs."""


def _json_text(value: Any) -> str:
    try:
        return _TEXT_ENCODER.encode(value)
    except (TypeError, ValueError, RecursionError):
        return repr(value)
