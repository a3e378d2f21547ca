"""Request bodies for the Anthropic Messages API and OpenAI Chat Completions.

Both providers reject a history whose tool calls are not answered in the very
next message, whose results come after other content, or whose results answer
no call. A path in the tree need not obey that (an interrupted session, results
spread over several messages, a trimmed start), so :func:`answered_steps` first
rewrites the path into steps that do:

- every tool call's results are gathered into one results step right after the
  assistant message that made the call, in call order;
- a call with no result anywhere later on the path (an interrupted call, or a
  path that ends mid-turn) gets a synthesized error result saying so;
- a result that answers no earlier call, or answers one a second time, becomes
  plain text where it stood.

Every such change is reported in ``notes``. A body therefore always ends at the
last message of the path, never cut back to an earlier boundary: what was asked
and answered stays, and an unanswered call reads as interrupted.

Thinking is left out of both bodies: a replayed thinking block needs the
provider's own signature, and Chat Completions has no field for it. Images are
sent as base64 data (Anthropic) or ``data:`` URLs (OpenAI); images without
stored bytes, or in a type the provider does not take, become a text marker.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

from explorer.formats.exporters.steps import (
    OPENING,
    Step,
    ToolIds,
    active_path,
    answered_steps,
    image_marker,
    sendable_image,
    tool_name,
)
from explorer.tree.model import Message, Part


def pick_model(path: Sequence[Message], prefixes: tuple[str, ...], default: str) -> str:
    """The last model on the path that belongs to the provider, else ``default``."""
    for m in reversed(path):
        if m.model and m.model.startswith(prefixes):
            return m.model
    return default


def body_lines(body: Mapping[str, Any]) -> Iterator[str]:
    """A body as indented JSON lines (no trailing newline in any line)."""
    yield from json.dumps(body, ensure_ascii=False, indent=2).splitlines()


# ---------------------------------------------------------------------------
# Anthropic Messages API
# ---------------------------------------------------------------------------

ANTHROPIC_MODEL = "claude-sonnet-4-5"
MAX_TOKENS = 4096


def anthropic_body(path: Sequence[Message], notes: list[str], model: str | None = None
                   ) -> dict[str, Any]:
    """A Messages API body: leading system text as ``system``, then alternating turns.

    Consecutive steps of one role are merged (results first, as the API wants);
    a system message after the start becomes user text, since the API has no
    system role inside ``messages``; a history opening with the assistant gets a
    short user message before it.
    """
    ids = ToolIds()
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    for step in answered_steps(path, notes):
        if step.role == "system" and not messages:
            system.extend(p.text for p in step.parts if p.kind == "text" and p.text.strip())
            continue
        role = "assistant" if step.role == "assistant" else "user"
        blocks = _anthropic_blocks(step, ids)
        if step.role == "system":
            blocks = [{"type": "text", "text": f"[system]\n{b['text']}"} for b in blocks
                      if b["type"] == "text"]
        if not blocks:
            continue
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
    if not messages or messages[0]["role"] != "user":
        notes.append("the path does not open with a user message; added one saying so")
        messages.insert(0, {"role": "user", "content": [{"type": "text", "text": OPENING}]})
    _strip_final_whitespace(messages)
    body: dict[str, Any] = {
        "model": model or pick_model(path, ("claude",), ANTHROPIC_MODEL),
        "max_tokens": MAX_TOKENS,
    }
    if system:
        body["system"] = "\n\n".join(system)
    body["messages"] = messages
    return body


def _anthropic_blocks(step: Step, ids: ToolIds) -> list[dict[str, Any]]:
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
            blocks.append(_anthropic_image(p) if step.role == "user" and sendable_image(p)
                          else {"type": "text", "text": image_marker(p)})
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
        block["content"].append(_anthropic_image(p) if sendable_image(p)
                                else {"type": "text", "text": image_marker(p)})
    elif p.text.strip():
        block["content"].append({"type": "text", "text": p.text})


def _anthropic_image(p: Part) -> dict[str, Any]:
    data = base64.b64encode(p.data or b"").decode("ascii")
    return {"type": "image",
            "source": {"type": "base64", "media_type": p.media_type, "data": data}}


def _strip_final_whitespace(messages: list[dict[str, Any]]) -> None:
    """The API refuses a final assistant message whose text ends in whitespace."""
    if not messages or messages[-1]["role"] != "assistant":
        return
    content = messages[-1]["content"]
    if content and content[-1]["type"] == "text":
        content[-1]["text"] = content[-1]["text"].rstrip()


def tool_arguments(text: str) -> dict[str, Any]:
    """Tool input as an object; anything else is wrapped so no argument is lost."""
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return {"input": text}
    return value if isinstance(value, dict) else {"input": value}


# ---------------------------------------------------------------------------
# OpenAI Chat Completions
# ---------------------------------------------------------------------------

OPENAI_MODEL = "gpt-4o"
OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt")


def openai_body(path: Sequence[Message], notes: list[str], model: str | None = None
                ) -> dict[str, Any]:
    """A Chat Completions body: ``tool_calls`` answered by ``role: tool`` messages.

    Tool messages carry text only, so images a tool returned follow the tool
    messages of their call in one user message.
    """
    ids = ToolIds()
    messages: list[dict[str, Any]] = []
    for step in answered_steps(path, notes):
        if step.results:
            messages.extend(_openai_results(step, ids))
        elif step.role == "assistant":
            messages.extend(_openai_assistant(step, ids))
        else:
            content = _openai_content(step)
            if content:
                messages.append({"role": step.role, "content": content})
    if not messages:
        notes.append("the path holds nothing to send; added a user message saying so")
        messages.append({"role": "user", "content": OPENING})
    model = model or pick_model(path, OPENAI_PREFIXES, OPENAI_MODEL)
    return {"model": model, "messages": messages}


def _openai_assistant(step: Step, ids: ToolIds) -> list[dict[str, Any]]:
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


def _openai_results(step: Step, ids: ToolIds) -> list[dict[str, Any]]:
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
            text = image_marker(p) + (" (attached below)" if sendable_image(p) else "")
            if sendable_image(p):
                images.append(_openai_image(p))
        if p.is_error and not message["content"]:
            text = f"Error: {text}"
        message["content"] = "\n".join(t for t in (message["content"], text) if t)
    if images:
        out.append({"role": "user", "content": [
            {"type": "text", "text": "Images returned by the tool calls above:"}, *images]})
    return out


def _openai_content(step: Step) -> str | list[dict[str, Any]]:
    """Text alone as a string; with images, a list of text and ``image_url`` parts."""
    parts: list[dict[str, Any]] = []
    for p in step.parts:
        if p.kind == "text" and p.text.strip():
            parts.append({"type": "text", "text": p.text})
        elif p.kind == "image" and step.role == "user" and sendable_image(p):
            parts.append(_openai_image(p))
        elif p.kind == "image":
            parts.append({"type": "text", "text": image_marker(p)})
    if all(part["type"] == "text" for part in parts):
        return "\n\n".join(part["text"] for part in parts)
    return parts


def _openai_image(p: Part) -> dict[str, Any]:
    data = base64.b64encode(p.data or b"").decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{p.media_type};base64,{data}"}}


def _arguments_text(text: str) -> str:
    """Arguments as the JSON text of an object, as Chat Completions expects."""
    return json.dumps(tool_arguments(text), ensure_ascii=False)


# ---------------------------------------------------------------------------
# the exporters' entry points
# ---------------------------------------------------------------------------


def anthropic_lines(header: Mapping[str, Any], messages: Sequence[Message],
                    tip: Hashable | None, notes: list[str] | None = None) -> Iterator[str]:
    yield from body_lines(anthropic_body(active_path(messages, tip), _notes(notes)))


def openai_lines(header: Mapping[str, Any], messages: Sequence[Message],
                 tip: Hashable | None, notes: list[str] | None = None) -> Iterator[str]:
    yield from body_lines(openai_body(active_path(messages, tip), _notes(notes)))


def _notes(notes: list[str] | None) -> list[str]:
    return notes if notes is not None else []
