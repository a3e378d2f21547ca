"""The one Anthropic Messages API encoder: ``send``, the preview and the export all use it (X1).

A path need not obey the API's rules (an interrupted session, results spread over several
messages, a trimmed start), so :func:`answered_steps` first rewrites it into steps in which
every call is answered right after it; consecutive steps of one role are then merged (results
first), leading system text becomes ``system``, a later system message becomes user text, and a
history opening with the assistant gets a short user message before it. Thinking is left out
(a replayed thinking block needs the provider's own signature). Images the API would refuse
become text markers, and no more than the provider's limit travel in one request.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from explorer.compaction.target import ImageRule
from explorer.formats.exporters.steps import (
    OPENING,
    Step,
    ToolIds,
    answered_steps,
    tool_arguments,
    tool_name,
)
from explorer.providers.base import cap_images, image_media_type, sendable_or_marker
from explorer.tree.model import Message, Part

MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_IMAGE_SIDE = 8000
MAX_IMAGES = 100  # per request (the source is in explorer.compaction.target.MAX_IMAGES)


def request_body(
    messages: Sequence[Message], model: str, max_tokens: int, *, stream: bool = True,
    images: ImageRule | None = None, notes: list[str] | None = None,
) -> dict[str, Any]:
    """The Messages API request carrying ``messages``."""
    notes = notes if notes is not None else []
    limit = images.max_images if images is not None else MAX_IMAGES
    system, turns = _turns(cap_images(messages, limit, notes), notes)
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    if stream:
        body["stream"] = True
    if system:
        body["system"] = "\n\n".join(system)
    body["messages"] = turns
    return body


def _turns(path: Sequence[Message], notes: list[str]) -> tuple[list[str], list[dict[str, Any]]]:
    ids = ToolIds()
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for step in answered_steps(path, notes):
        if step.role == "system" and not turns:
            system.extend(p.text for p in step.parts if p.kind == "text" and p.text.strip())
            continue
        role = "assistant" if step.role == "assistant" else "user"
        blocks = _blocks(step, ids)
        if step.role == "system":
            blocks = [{"type": "text", "text": f"[system]\n{b['text']}"} for b in blocks
                      if b["type"] == "text"]
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    if not turns or turns[0]["role"] != "user":
        notes.append("the path does not open with a user message; added one saying so")
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": OPENING}]})
    _strip_final_whitespace(turns)
    return system, turns


def _blocks(step: Step, ids: ToolIds) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    results: dict[str, dict[str, Any]] = {}
    for p in step.parts:
        if p.kind == "text" and p.text.strip():
            blocks.append({"type": "text", "text": p.text})
        elif p.kind == "tool_use":
            blocks.append({"type": "tool_use", "id": ids(p.tool_use_id),
                           "name": tool_name(p.tool_name), "input": tool_arguments(p.text)})
        elif p.kind == "tool_result":
            _add_result(results, blocks, p, ids)
        elif p.kind == "image":
            blocks.append(_image(p, step.role == "user"))
    for block in results.values():
        if not block["content"]:
            del block["content"]
    return blocks


def _add_result(results: dict[str, dict[str, Any]], blocks: list[dict[str, Any]], p: Part,
                ids: ToolIds) -> None:
    """One ``tool_result`` block per call; further parts of it (images) join its content."""
    key = ids(p.tool_use_id)
    block = results.get(key)
    if block is None:
        block = {"type": "tool_result", "tool_use_id": key, "content": []}
        results[key] = block
        blocks.append(block)
    if p.is_error:
        block["is_error"] = True
    if p.data is not None:
        block["content"].append(_image(p, True))
    elif p.text.strip():
        block["content"].append({"type": "text", "text": p.text})


def _image(p: Part, allowed: bool) -> dict[str, Any]:
    """An image block, or the marker saying why it was not sent (assistants carry none)."""
    part = sendable_or_marker(p, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, allowed)
    if "image_left_out" in part.meta:  # a marker saying why it was not sent
        return {"type": "text", "text": part.text}
    data = base64.b64encode(part.data or b"").decode("ascii")
    return {"type": "image",
            "source": {"type": "base64", "media_type": image_media_type(part), "data": data}}


def _strip_final_whitespace(turns: list[dict[str, Any]]) -> None:
    """The API refuses a final assistant message whose text ends in whitespace."""
    if not turns or turns[-1]["role"] != "assistant":
        return
    content = turns[-1]["content"]
    if content and content[-1]["type"] == "text":
        content[-1]["text"] = content[-1]["text"].rstrip()
