"""One Goose message (``{role, created, content: [...]}``) as parts of the tree.

Goose writes its ``MessageContent`` list as serde tags it: ``text``, ``image`` (``data``,
``mimeType``), ``thinking`` / ``redactedThinking``, ``toolRequest`` (``id``, ``toolCall``:
``{status, value: {name, arguments}}`` or ``{status: "error", error}``) and
``toolResponse`` (``id``, ``toolResult``: ``{status, value: [content]}`` or an error), the
results riding in a ``user`` message as the provider wants them.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from explorer.formats.common import as_text, image_part
from explorer.tree.model import Part, Role


def message_role(role: Any, content: list[Any]) -> Role | None:
    """``user`` messages that carry only tool results are the tools' turn, not a prompt."""
    if role == "assistant":
        return "assistant"
    if role != "user":
        return None
    kinds = {c.get("type") for c in content if isinstance(c, dict)}
    return "tool" if kinds and kinds <= {"toolResponse"} else "user"


def parts_of(content: list[Any], where: str, notes: list[str], ignored: Counter[str]
             ) -> list[Part]:
    parts: list[Part] = []
    for item in content:
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(item, dict):
            ignored["<content not an object>"] += 1
        elif kind == "text":
            parts.append(Part("text", as_text(item.get("text"))))
        elif kind == "image":
            parts.append(image_part(item.get("data"), item.get("mimeType"), notes, where))
        elif kind == "thinking":
            parts.append(Part("thinking", as_text(item.get("thinking"))))
        elif kind == "redactedThinking":
            parts.append(Part("thinking", "[redacted thinking]", meta={"redacted": True}))
        elif kind == "toolRequest":
            call = _dict(item.get("toolCall"))
            value = _dict(call.get("value"))
            args = value.get("arguments", {}) if value else {"error": call.get("error")}
            parts.append(Part("tool_use", json.dumps(args, ensure_ascii=False, default=str),
                              tool_name=as_text(value.get("name")) or None,
                              tool_use_id=as_text(item.get("id")) or None))
        elif kind == "toolResponse":
            result = _dict(item.get("toolResult"))
            failed = result.get("status") == "error"
            body = result.get("error") if failed else result.get("value")
            parts.append(Part("tool_result", _text(body), tool_use_id=as_text(item.get("id"))
                              or None, is_error=failed))
        else:
            ignored[f"content:{kind}"] += 1
            notes.append(f"{where}: content of type {kind!r} skipped")
    return parts


def _text(body: Any) -> str:
    """A tool result's text: its ``text`` items joined (an image result is named)."""
    if isinstance(body, list):
        return "\n".join(as_text(b.get("text")) if isinstance(b, dict) and "text" in b
                         else f"[{b.get('type')}]" if isinstance(b, dict) else as_text(b)
                         for b in body)
    return as_text(body)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
