"""A pi message body as parts: text, thinking, tool calls and results, bash runs, images,
and the reason an errored or aborted answer stopped."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from explorer.formats.common import as_text, image_part
from explorer.tree.model import Part


def message_parts(role_name: str, body: dict[str, Any], where: str, notes: list[str],
                  ignored: Counter[str]) -> list[Part]:
    """The parts of one pi message body (``where`` names it in notes of what was skipped)."""
    content = body.get("content")
    if role_name == "bashExecution":
        command, output = as_text(body.get("command")), as_text(body.get("output"))
        return [Part("text", f"$ {command}\n{output}")]
    if role_name == "toolResult":
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts = [as_text(b.get("text")) for b in blocks if _block_type(b) == "text"]
        result = Part(
            "tool_result",
            "\n".join(texts),
            tool_name=body.get("toolName") if isinstance(body.get("toolName"), str) else None,
            tool_use_id=as_text(body.get("toolCallId")) or None,
            is_error=body.get("isError") is True,
        )
        images = [b for b in blocks if _block_type(b) == "image"]
        return [result, *_blocks(images, where, notes, ignored)]
    if isinstance(content, list):
        return _blocks(content, where, notes, ignored)
    return [Part("text", as_text(content))] if content is not None else []

def _blocks(blocks: list[Any], where: str, notes: list[str], ignored: Counter[str]
            ) -> list[Part]:
    parts: list[Part] = []
    for block in blocks:
        kind = _block_type(block)
        if kind == "text":
            parts.append(Part("text", as_text(block.get("text"))))
        elif kind == "thinking":
            parts.append(Part("thinking", as_text(block.get("thinking"))))
        elif kind == "toolCall":
            name = block.get("name")
            parts.append(
                Part(
                    "tool_use",
                    json.dumps(block.get("arguments", {}), ensure_ascii=False, default=str),
                    tool_name=name if isinstance(name, str) else None,
                    tool_use_id=as_text(block.get("id")) or None,
                )
            )
        elif kind == "image":
            data, mime = block.get("data"), block.get("mimeType")
            parts.append(image_part(data, mime, notes, where))
        else:
            ignored[f"block:{kind}"] += 1
            notes.append(f"{where}: content block of type {kind!r} skipped")
    return parts


def failure_parts(body: dict[str, Any]) -> list[Part]:
    """An errored or aborted turn shows why, not an empty answer (pi keeps the reason
    beside the content, in ``errorMessage``)."""
    reason = body.get("stopReason")
    if reason not in ("error", "aborted"):
        return []
    message = as_text(body.get("errorMessage")).strip()
    label = "Error" if reason == "error" else "Aborted"
    return [Part("text", f"[{label}: {message}]" if message else f"[{label}]",
                 meta={"pi_stop": reason})]


def _block_type(block: object) -> str:
    if not isinstance(block, dict):
        return f"<{type(block).__name__}>"
    kind = block.get("type")
    return kind if isinstance(kind, str) else "<no type>"
