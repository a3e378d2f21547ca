"""The one Anthropic Messages API encoder: ``send``, the preview and the export all use it (X1).

A path need not obey the API's rules (an interrupted session, results spread over several
messages, a trimmed start), so :func:`answered_steps` first rewrites it into steps in which
every call is answered right after it; consecutive steps of one role are then merged (results
first), leading system text becomes ``system``, a later system message becomes user text, and a
history opening with the assistant gets a short user message before it. Thinking is left out
(a replayed thinking block needs the provider's own signature). Images the API would refuse
become text markers, and no more than the provider's limit travel in one request.

Prompt caching (https://docs.claude.com/en/docs/build-with-claude/prompt-caching): up to four
``cache_control`` breakpoints mark prefixes that stay byte-stable from one request to the next
— the system text, the verbatim head before the compacted middle, the last turn before the new
prompt, and the new prompt itself (written now, read by the next request). A regenerate, an
edit-and-run or the next turn therefore reads the long prefix from the cache, and a compaction
that re-images the middle still reads the system text and the head.
"""

from __future__ import annotations

import base64
import hashlib
import json
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
    prompt_start: int | None = None, cache: bool = True,
) -> dict[str, Any]:
    """The Messages API request carrying ``messages``; ``messages[prompt_start:]`` is the new
    prompt (``None``: all of it is context, as in the preview)."""
    notes = notes if notes is not None else []
    limit = images.max_images if images is not None else MAX_IMAGES
    path = cap_images(messages, limit, notes)
    marks = cache_marks(path, prompt_start) if cache else set()
    system, turns, blocks = _turns(path, notes, marks)
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    if stream:
        body["stream"] = True
    if system:
        text = "\n\n".join(system)
        body["system"] = [{"type": "text", "text": text, **EPHEMERAL}] if cache else text
    for block in blocks:
        block.update(EPHEMERAL)
    body["messages"] = turns
    return body


EPHEMERAL: dict[str, Any] = {"cache_control": {"type": "ephemeral"}}


def cache_marks(path: Sequence[Message], prompt_start: int | None) -> set[int]:
    """Indexes of the messages whose last block ends a stable prefix (three at most)."""
    end = (len(path) if prompt_start is None else prompt_start) - 1
    marks = {end} if end >= 0 else set()
    compacted = next((i for i, m in enumerate(path) if is_compacted(m)), None)
    if compacted:  # the verbatim head before the pages or the summary
        marks.add(compacted - 1)
    if prompt_start is not None and prompt_start < len(path):
        marks.add(len(path) - 1)
    return marks


def is_compacted(message: Message) -> bool:
    """True for the message standing in for the compacted middle (pages or summary)."""
    return any(p.meta.get("compaction") for p in message.parts)


def _turns(path: Sequence[Message], notes: list[str], marks: set[int]
           ) -> tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    ids = ToolIds()
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    marked: dict[int, dict[str, Any]] = {}  # message index -> its last block so far
    where = {id(m): i for i, m in enumerate(path)}
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
        index = where.get(id(step.origin))
        if index in marks:
            marked[index] = blocks[-1]
    if not turns or turns[0]["role"] != "user":
        notes.append("the path does not open with a user message; added one saying so")
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": OPENING}]})
    _strip_final_whitespace(turns)
    return system, turns, list({id(b): b for b in marked.values()}.values())


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
    """The API refuses a final assistant message whose text ends in whitespace; every
    assistant turn is trimmed alike, so a turn reads the same whether a prompt follows it
    (``send``) or not (the preview) — and the cached prefix stays the same bytes."""
    for turn in turns:
        content = turn["content"]
        if turn["role"] == "assistant" and content and content[-1]["type"] == "text":
            content[-1]["text"] = content[-1]["text"].rstrip()


LOOKBACK = 20  # blocks before a breakpoint the provider also checks for an earlier write


def cache_prefixes(body: dict[str, Any]) -> tuple[list[str], set[str]]:
    """The keys (sha256) of the prefixes ``body``'s breakpoints end, in order, and the keys of
    every prefix a read may match: up to ``LOOKBACK`` block boundaries before each breakpoint.

    A prefix is read from the cache when an earlier request wrote one with the same key
    (markers and the stream flag aside, it must be byte for byte the same).
    """
    system = body.get("system")
    system_key = _strip_marks(system) if isinstance(system, list) else system
    bounds: list[tuple[str, bool]] = []  # (key, is a breakpoint) at every block boundary
    if isinstance(system, list) and system:
        bounds.append((_key(body["model"], system_key, []), "cache_control" in system[-1]))
    done: list[dict[str, Any]] = []
    for message in body["messages"]:
        content = message["content"]
        for j, block in enumerate(content if isinstance(content, list) else []):
            head = {"role": message["role"], "content": _strip_marks(content[: j + 1])}
            bounds.append((_key(body["model"], system_key, [*done, head]),
                           "cache_control" in block))
        done.append({"role": message["role"], "content": _strip_marks(content)})
    marks = [i for i, (_, mark) in enumerate(bounds) if mark]
    reachable = {bounds[k][0] for i in marks for k in range(max(0, i - LOOKBACK), i + 1)}
    return [bounds[i][0] for i in marks], reachable


def _strip_marks(value: Any) -> Any:
    if isinstance(value, list):
        return [{k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict)
                else b for b in value]
    return value


def _key(model: str, system: Any, messages: list[dict[str, Any]]) -> str:
    data = json.dumps([model, system, messages], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()
