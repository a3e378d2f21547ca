"""A ``cursor-agent`` chat: ``~/.cursor/chats/<md5 of the workspace>/<chat id>/store.db``.

The database is a content-addressed blob store with two tables. ``meta`` holds one row
(key ``"0"``) whose value is hex-encoded JSON: ``agentId``, ``name``, ``createdAt`` (ms),
``mode``, ``lastUsedModel`` and ``latestRootBlobId``. ``blobs`` maps a SHA-256 id to bytes:
either a message (JSON, ``{"role", "content"}`` in the AI SDK's shape: ``text``,
``reasoning``, ``tool-call`` and ``tool-result`` blocks) or a linking blob (protobuf,
field 1 repeated, each a child's 32-byte id). The conversation is the messages reached
from the root, depth first. Nothing records a message's time; all carry the chat's.
"""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.cursor.sql import connect, tables_of
from explorer.tree.model import Message, Part, Role

FORMAT = "cursor"
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.S)
_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant", "tool": "tool"}


def is_store(conn: sqlite3.Connection) -> bool:
    return {"meta", "blobs"} <= tables_of(conn)


def chat_meta(conn: sqlite3.Connection) -> dict[str, Any]:
    """The chat's metadata (``meta`` key ``"0"``), decoded from hex (or plain) JSON."""
    row = conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    if row is None:
        raise FormatError("no chat metadata (meta row '0')")
    raw = row[0]
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    try:
        value = json.loads(bytes.fromhex(text).decode("utf-8") if _is_hex(text) else text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FormatError(f"chat metadata is not JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise FormatError("chat metadata is not a JSON object")
    return value


def read_store(path: Path) -> ImportedConversation:
    try:
        with closing(connect(path)) as conn:
            meta = chat_meta(conn)
            blobs = {str(r[0]): bytes(r[1]) for r in conn.execute("SELECT id, data FROM blobs")
                     if r[1] is not None}
    except sqlite3.Error as exc:
        raise FormatError(f"{path.name}: a damaged cursor-agent chat ({exc})") from exc
    except FormatError as exc:
        raise FormatError(f"{path.name}: {exc}") from exc
    conv = ImportedConversation(title=as_text(meta.get("name")).strip()[:80], source_format=FORMAT,
                                messages=[], source_id=as_text(meta.get("agentId")) or None,
                                source_path=str(path), created_at=parse_time(meta.get("createdAt")))
    conv.meta.update({"agent": "cursor-agent", **{k: meta[k] for k in ("mode", "lastUsedModel")
                                                  if isinstance(meta.get(k), str)}})
    model = as_text(meta.get("lastUsedModel")) or None
    last: str | None = None
    for blob_id, value in _messages(as_text(meta.get("latestRootBlobId")), blobs, conv.notes):
        role = _ROLES.get(as_text(value.get("role")))
        if role is None:
            if value.get("role") == "system" and "instructions" not in conv.meta:
                conv.meta["instructions"] = _text_of(value.get("content"))
            conv.ignored_records[f"role:{value.get('role')}"] += 1
            continue
        parts = _parts(role, value.get("content"), conv)
        if not parts:
            conv.ignored_records[f"empty {role} message"] += 1
            continue
        conv.messages.append(Message(blob_id, last, role, parts, conv.created_at,
                                     model if role == "assistant" else None, source_id=blob_id))
        last = blob_id
    conv.title = conv.title or preview_title(conv.messages, conv.source_id or path.parent.name)
    return finish(conv, last)


def _messages(root: str, blobs: dict[str, bytes], notes: list[str]
              ) -> list[tuple[str, dict[str, Any]]]:
    """The message blobs below ``root``, depth first, each once."""
    out: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    todo = [root]
    while todo:
        blob_id = todo.pop()
        if blob_id in seen:
            continue
        seen.add(blob_id)
        data = blobs.get(blob_id)
        if data is None:
            notes.append(f"blob {blob_id[:12]}: named but not stored; skipped")
            continue
        if data.lstrip()[:1] == b"{":
            try:
                value = json.loads(data)
            except ValueError:
                notes.append(f"blob {blob_id[:12]}: not valid JSON; skipped")
                continue
            if isinstance(value, dict):
                out.append((blob_id, value))
            continue
        todo.extend(reversed(_children(data)))
    return out


def _children(data: bytes) -> list[str]:
    """The 32-byte ids of a linking blob's field 1 (other protobuf fields are passed over)."""
    out: list[str] = []
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        wire = key & 7
        if wire == 2:
            size, at = _varint(data, at)
            if key >> 3 == 1 and size == 32:
                out.append(data[at:at + 32].hex())
            at += size
        elif wire == 0:
            _, at = _varint(data, at)
        elif wire in (1, 5):
            at += 8 if wire == 1 else 4
        else:
            break
    return out


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while at < len(data):
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
    return value, at


def _parts(role: Role, content: Any, conv: ImportedConversation) -> list[Part]:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    parts: list[Part] = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            text = as_text(block.get("text"))
            if role == "user":
                found = _QUERY.findall(text)
                text = "\n".join(found) if found else text
            if text.strip():
                parts.append(Part("text", text))
        elif kind == "reasoning":
            parts.append(Part("thinking", as_text(block.get("text"))))
        elif kind == "tool-call":
            args = block.get("args", block.get("input", {}))
            parts.append(Part("tool_use", args if isinstance(args, str) else json.dumps(
                args, ensure_ascii=False, default=str), tool_name=as_text(block.get("toolName"))
                or None, tool_use_id=as_text(block.get("toolCallId")) or None))
        elif kind == "tool-result":
            parts.append(Part("tool_result", _text_of(block.get("result", block.get("output"))),
                              tool_name=as_text(block.get("toolName")) or None,
                              tool_use_id=as_text(block.get("toolCallId")) or None,
                              is_error=block.get("isError") is True))
        else:
            conv.ignored_records[f"block:{kind}"] += 1
    return parts


def _text_of(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(as_text(b.get("text")) if isinstance(b, dict) and "text" in b
                         else as_text(b) for b in value)
    if isinstance(value, dict) and "text" in value:
        return as_text(value["text"])
    return as_text(value)


def _is_hex(text: str) -> bool:
    return bool(text) and len(text) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in text)
