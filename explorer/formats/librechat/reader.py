"""LibreChat conversation export (one JSON object per file).

``{conversationId, title, endpoint, options, messages | messagesTree}``. Messages
come flat (each names its ``parentMessageId``; the all-zero UUID means "no
parent") or nested (``recursive: true``: each message holds its ``children``,
and the nesting is the truth, as LibreChat's own importer treats it). Text is in
``text`` or in a ``content`` list of typed parts (text, think, tool_call,
image_url, error, ...).

The export does not name the branch that was on screen. The tip is the newest
leaf by ``createdAt`` when every leaf is dated; otherwise the last leaf in export
order, which in a nested export is the path through each last child, the branch
LibreChat shows by default.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time
from explorer.formats.jsonl import peek_prefix
from explorer.tree.model import Message, Part, Usage

FORMAT = "librechat"
PEEK = 64 * 1024  # what jsonl.peek_prefix reads
NO_PARENT = "00000000-0000-0000-0000-000000000000"
META_KEYS = (
    "sender", "endpoint", "unfinished", "error", "finish_reason", "isEdited", "files",
    "attachments", "conversationId",
)
_TOP = re.compile(rb'^\s*\{\s*"(conversationId|endpoint|title)"')
_MESSAGES = re.compile(rb'"(messages|messagesTree)"\s*:\s*\[')


def sniff(path: Path) -> bool:
    """A JSON object naming a ``conversationId`` and holding a messages array."""
    try:
        head = peek_prefix(path)
    except OSError:
        return False
    return (
        bool(_TOP.search(head))
        and b'"conversationId"' in head
        and (bool(_MESSAGES.search(head)) or len(head) == PEEK)
    )


def read(path: Path) -> Iterator[ImportedConversation]:
    """The one conversation an export holds."""
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (ValueError, RecursionError) as e:
        raise FormatError(f"{path.name}: not valid JSON ({e})") from e
    items = data.get("messagesTree") or data.get("messages") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(items, list):
        raise FormatError(f"{path.name}: not a LibreChat export (no messages array)")
    conv = ImportedConversation(
        title=as_text(data.get("title")) or path.stem,
        source_format=FORMAT,
        messages=[],
        source_id=as_text(data.get("conversationId")) or None,
        source_path=str(path),
    )
    conv.meta.update({k: data[k] for k in ("endpoint", "exportAt", "options") if k in data})
    nested = data.get("recursive") is True or any(
        isinstance(m, dict) and isinstance(m.get("children"), list) and m["children"]
        for m in items
    )
    raw = _flatten(items, conv) if nested else _flat(items, conv)
    conv.messages = [_message(key, parent, m, conv) for key, parent, m in raw]
    conv.created_at = min((m.created_at for m in conv.messages if m.created_at), default=None)
    tip = _newest_leaf(conv.messages)
    tip_raw = next((m for key, _, m in raw if key == tip), None)
    conv.incomplete = bool(tip_raw and tip_raw.get("unfinished") is True)
    yield finish(conv, tip)


Raw = tuple[str, str | None, dict[str, Any]]


def _key(m: dict[str, Any], where: str, conv: ImportedConversation) -> str:
    key = m.get("messageId")
    if isinstance(key, str) and key:
        return key
    conv.notes.append(f"{where}: message has no messageId; keyed it by position")
    return where


def _flat(items: list[Any], conv: ImportedConversation) -> list[Raw]:
    out: list[Raw] = []
    for i, m in enumerate(items):
        if not isinstance(m, dict):
            conv.notes.append(f"message #{i}: not an object; skipped")
            continue
        parent = m.get("parentMessageId")
        parent_key = as_text(parent) if parent not in (None, "", NO_PARENT) else None
        out.append((_key(m, f"message #{i}", conv), parent_key, m))
    return out


def _flatten(items: list[Any], conv: ImportedConversation) -> list[Raw]:
    """Depth-first, parents before children; iterative so deep trees cannot overflow."""
    out: list[Raw] = []
    stack: list[tuple[Any, str | None, str]] = [
        (m, None, f"message #{i}") for i, m in reversed(list(enumerate(items)))
    ]
    while stack:
        m, parent, where = stack.pop()
        if not isinstance(m, dict):
            conv.notes.append(f"{where}: not an object; skipped")
            continue
        key = _key(m, where, conv)
        out.append((key, parent, m))
        children = m.get("children")
        if isinstance(children, list):
            stack += [(c, key, f"{where}.{j}") for j, c in reversed(list(enumerate(children)))]
    return out


def _message(
    key: str, parent: str | None, m: dict[str, Any], conv: ImportedConversation
) -> Message:
    by_user = m.get("isCreatedByUser") is True
    parts = _parts(m.get("content"), key, conv)
    if not any(p.kind == "text" for p in parts) and as_text(m.get("text")):
        parts.insert(0, Part("text", as_text(m.get("text"))))
    model = m.get("model")
    usage = None
    if not by_user:
        counts = {"input_tokens": m.get("promptTokens"), "output_tokens": m.get("tokenCount")}
        known = {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}
        usage = Usage(**known) if known else None
    return Message(
        id=key,
        parent_id=parent,
        role="user" if by_user else "assistant",
        parts=parts,
        created_at=parse_time(m.get("createdAt")),
        model=model if isinstance(model, str) else None,
        usage=usage,
        source_id=key,
        source_meta={k: m[k] for k in META_KEYS if m.get(k) not in (None, False, [], "")},
    )


def _parts(content: object, key: str, conv: ImportedConversation) -> list[Part]:
    if not isinstance(content, list):
        return []
    parts: list[Part] = []
    for item in content:
        kind = as_text(item.get("type")) if isinstance(item, dict) else type(item).__name__
        if not isinstance(item, dict):
            conv.ignored_records[f"content:{kind}"] += 1
        elif kind == "text":
            parts.append(Part("text", _value(item.get("text"))))
        elif kind == "think":
            parts.append(Part("thinking", _value(item.get("think"))))
        elif kind == "tool_call" and isinstance(item.get("tool_call"), dict):
            parts += _tool_call(item["tool_call"])
        elif kind == "image_url":
            parts.append(_image(item.get("image_url"), key, conv))
        elif kind == "error":
            parts.append(Part("text", _value(item.get("error")), meta={"error": True}))
        else:
            conv.ignored_records[f"content:{kind}"] += 1
    return parts


def _value(text: object) -> str:
    """LibreChat text parts hold a string or ``{"value": string}``."""
    return as_text(text.get("value")) if isinstance(text, dict) else as_text(text)


def _tool_call(call: dict[str, Any]) -> list[Part]:
    name = as_text(call.get("name") or call.get("type")) or None
    call_id = as_text(call.get("id")) or None
    args = call.get("args")
    text = args if isinstance(args, str) else json.dumps(args or {}, default=str)
    parts = [Part("tool_use", text, tool_name=name, tool_use_id=call_id)]
    if call.get("output") is not None:
        parts.append(Part("tool_result", as_text(call.get("output")), tool_name=name,
                          tool_use_id=call_id))
    return parts


def _image(image: object, key: str, conv: ImportedConversation) -> Part:
    url = as_text(image.get("url")) if isinstance(image, dict) else as_text(image)
    match = re.match(r"data:([\w/+.-]+);base64,(.*)", url, re.S)
    if match:
        try:
            return Part("image", data=base64.b64decode(match[2]), media_type=match[1])
        except (binascii.Error, ValueError):
            conv.notes.append(f"message {key}: image data URL is not base64; kept its marker")
    return Part("text", f"[image: {url[:200]}]", meta={"image_url": url[:2000]})


def _newest_leaf(messages: list[Message]) -> Hashable | None:
    parents = {m.parent_id for m in messages}
    leaves = [m for m in messages if m.id not in parents]
    if leaves and all(m.created_at is not None for m in leaves):
        return max(leaves, key=lambda m: m.created_at or 0.0).id
    return leaves[-1].id if leaves else None
