"""claude.ai data export (``conversations.json``).

An array of ``{uuid, name, created_at, updated_at, chat_messages: [...]}``;
each chat message has ``uuid``, ``sender`` (human | assistant), ``text``, a
``content`` list of blocks (text, thinking, tool_use, tool_result),
``created_at``, ``attachments`` (``file_name`` and the ``extracted_content`` that
was sent) and ``files`` (names only). Messages are linear in array order.

Exports run to hundreds of megabytes, so the array is decoded one conversation
at a time rather than loaded whole; a broken or truncated element is named in a
note and the others are kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.json_stream import carry_notes, iter_elements
from explorer.formats.jsonl import peek_prefix
from explorer.tree.model import Message, Part, Role

FORMAT = "claude_ai"
ROLES: dict[str, Role] = {"human": "user", "user": "user", "assistant": "assistant"}


def sniff(path: Path) -> bool:
    """A JSON array (or object) whose start shows ``chat_messages`` and a ``uuid``."""
    try:
        head = peek_prefix(path).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return False
    return head[:1] in (b"[", b"{") and b'"chat_messages"' in head and b'"uuid"' in head


def read(path: Path) -> Iterator[ImportedConversation]:
    """Conversations in export order; notes on skipped elements go to a neighbour."""
    yield from carry_notes(_items(path), path.name)


def _items(path: Path) -> Iterator[ImportedConversation | str]:
    with path.open("rb") as fp:
        for el in iter_elements(fp):
            where = f"conversation #{el.index + 1} (character {el.offset})"
            if el.error is not None:
                yield f"{where}: {el.error}"
            elif not _is_conversation(el.value):
                yield f"{where}: not a conversation object; skipped"
            else:
                conv = _conversation(el.value, el.index, path)
                yield finish(conv, conv.messages[-1].id if conv.messages else None)


def _is_conversation(value: object) -> bool:
    """A conversation object; one without messages (``chat_messages`` empty, null or
    absent) is still a conversation the person had, so it is created empty."""
    if not isinstance(value, dict):
        return False
    messages = value.get("chat_messages")
    return isinstance(messages, list) or (messages is None and bool(as_text(value.get("uuid"))))


def _conversation(item: dict[str, Any], index: int, path: Path) -> ImportedConversation:
    conv = ImportedConversation(
        title=as_text(item.get("name")).strip(),
        source_format=FORMAT,
        messages=[],
        source_id=as_text(item.get("uuid")) or None,
        source_path=str(path),
        created_at=parse_time(item.get("created_at")),
    )
    conv.meta.update({k: item[k] for k in ("updated_at", "summary", "model") if item.get(k)})
    open_calls: list[str] = []
    parent: str | None = None
    messages = item.get("chat_messages")
    if not isinstance(messages, list):
        conv.notes.append(f"conversation {index}: no chat_messages; created it empty")
        messages = []
    for i, m in enumerate(messages):
        sender = m.get("sender") if isinstance(m, dict) else None
        role = ROLES.get(sender) if isinstance(sender, str) else None
        if not isinstance(m, dict) or role is None:
            conv.ignored_records[f"sender:{sender}"] += 1
            conv.notes.append(f"conversation {index}, message {i}: no known sender; skipped")
            continue
        key = as_text(m.get("uuid")) or f"message{i}"
        conv.messages.append(
            Message(
                id=key,
                parent_id=parent,
                role=role,
                parts=_parts(m, key, conv, open_calls),
                created_at=parse_time(m.get("created_at")),
                source_id=as_text(m.get("uuid")) or None,
                source_meta=_meta(m, i),
            )
        )
        parent = key
    if not conv.title:  # nameless (most of a real export): the first prompt, as elsewhere
        conv.title = preview_title(conv.messages, "Untitled")
    return conv


def _meta(m: dict[str, Any], index: int) -> dict[str, Any]:
    meta: dict[str, Any] = {"index": index}
    files = [f.get("file_name") for f in _list(m.get("files")) if isinstance(f, dict)]
    if files:
        meta["files"] = files
    if m.get("parent_message_uuid"):
        meta["parent_message_uuid"] = m["parent_message_uuid"]
    return meta


def _parts(
    m: dict[str, Any], key: str, conv: ImportedConversation, open_calls: list[str]
) -> list[Part]:
    content = m.get("content")
    parts: list[Part] = []
    if isinstance(content, list) and content:
        for j, block in enumerate(content):
            part = _block(block, f"{key}:{j}", conv, open_calls)
            if part is not None:
                parts.append(part)
    if not any(p.kind == "text" for p in parts) and as_text(m.get("text")):
        parts.insert(0, Part("text", as_text(m.get("text"))))  # ``text`` repeats text blocks
    for att in _list(m.get("attachments")):
        if isinstance(att, dict):
            name = as_text(att.get("file_name")) or "attachment"
            body = as_text(att.get("extracted_content"))
            parts.append(Part("text", f"[{name}]\n{body}", meta={"attachment": name}))
    return parts


def _block(
    block: object, where: str, conv: ImportedConversation, open_calls: list[str]
) -> Part | None:
    kind = as_text(block.get("type")) if isinstance(block, dict) else type(block).__name__
    if not isinstance(block, dict):
        conv.ignored_records[f"block:{kind}"] += 1
        return None
    name = as_text(block.get("name")) or None
    if kind == "text":
        return Part("text", as_text(block.get("text")))
    if kind == "thinking":
        return Part("thinking", as_text(block.get("thinking")))
    if kind == "tool_use":
        call_id = as_text(block.get("id")) or where
        open_calls.append(call_id)
        args = json.dumps(block.get("input", {}), ensure_ascii=False, default=str)
        return Part("tool_use", args, tool_name=name, tool_use_id=call_id)
    if kind == "tool_result":
        answers = as_text(block.get("tool_use_id")) or (open_calls[0] if open_calls else None)
        if answers in open_calls:
            open_calls.remove(answers)
        return Part("tool_result", _result_text(block.get("content")), tool_name=name,
                    tool_use_id=answers, is_error=block.get("is_error") is True)
    conv.ignored_records[f"block:{kind}"] += 1
    return None


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _result_text(content: object) -> str:
    if isinstance(content, list):
        texts = [as_text(c.get("text")) for c in content if isinstance(c, dict) and "text" in c]
        return "\n".join(texts) if texts else as_text(content)
    return as_text(content)
