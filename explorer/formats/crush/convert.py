"""A Crush session (its row and its messages) as one conversation.

A message's ``parts`` is Crush's ``marshalParts`` (``internal/message/message.go``): a
JSON list of ``{"type": ..., "data": {...}}`` with the types ``text``, ``reasoning``
(``thinking``, ``signature``), ``image_url`` (``url``), ``binary`` (``Path``,
``MIMEType``, ``Data`` in base64), ``tool_call`` (``id``, ``name``, ``input``),
``tool_result`` (``tool_call_id``, ``name``, ``content``, ``data``, ``mime_type``,
``is_error``), ``finish`` (``reason``, ``time``, ``message``, ``details``) and
``shell_command`` (a ``!command`` the person ran, with its output). Calls live in the
assistant's message and their results in the ``tool`` message after it, so the chain in
time order already keeps each call apart from its result (P1).

An assistant message with ``is_summary_message`` is a summary of what came before; the
session's ``summary_message_id`` names the one the context restarts at.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from explorer.formats.base import ImportedCompaction, ImportedConversation
from explorer.formats.common import as_text, finish, image_part, parse_time, preview_title
from explorer.formats.crush.database import value
from explorer.tree.model import Message, Part, Role

FORMAT = "crush"
_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant", "tool": "tool",
                           "system": "system"}
_FAILED = ("error", "content_filter", "canceled")


def conversation(session: sqlite3.Row, rows: list[sqlite3.Row], source: str,
                 cwd: str | None, parent_title: str | None) -> ImportedConversation:
    notes: list[str] = []
    sid = str(session["id"])
    conv = ImportedConversation(title="", source_format=FORMAT, messages=[], source_id=sid,
                                source_path=source, notes=notes)
    conv.created_at = parse_time(value(session, "created_at"))
    meta = conv.meta
    meta["agent"] = FORMAT
    if cwd:
        meta["cwd"] = cwd
    parent = value(session, "parent_session_id")
    if parent:
        meta["parent_session"] = str(parent)
    for column in ("prompt_tokens", "completion_tokens", "cost"):
        if value(session, column):
            meta[column] = value(session, column)
    summary_id = as_text(value(session, "summary_message_id")) or None
    last: str | None = None
    for row in rows:
        message = _message(row, last, conv)
        if message is None:
            continue
        conv.messages.append(message)
        if message.id == summary_id and last is not None:
            conv.compactions.append(ImportedCompaction(last, "summary", message.text,
                                                       {"origin": FORMAT, "message": summary_id}))
        last = str(message.id)
    if summary_id is not None and any(m.id == summary_id for m in conv.messages):
        conv.context_start = summary_id
    title = as_text(session["title"]).strip()
    title = title[:120] if title else preview_title(conv.messages, sid)
    conv.title = f"{parent_title} › {title}" if parent_title else title
    return finish(conv, conv.messages[-1].id if conv.messages else None)


def _message(row: sqlite3.Row, parent: str | None, conv: ImportedConversation) -> Message | None:
    mid, role_name = str(row["id"]), as_text(row["role"])
    role = _ROLES.get(role_name)
    if role is None:
        conv.ignored_records[f"message:{role_name}"] += 1
        conv.notes.append(f"message {mid}: role {role_name!r} unknown; skipped")
        return None
    raw = _parts(row, conv.notes)
    if raw is None:
        return None
    meta: dict[str, Any] = {}
    for column in ("provider", "finished_at"):
        if value(row, column) is not None:
            meta[column] = value(row, column)
    if value(row, "is_summary_message"):
        meta["summary"] = True
    parts: list[Part] = []
    for item in raw:
        parts.extend(_part(item, mid, meta, conv))
    model = as_text(value(row, "model")) or None
    return Message(mid, parent, role, parts, parse_time(value(row, "created_at")),
                   model if role == "assistant" else None, source_id=mid, source_meta=meta)


def _parts(row: sqlite3.Row, notes: list[str]) -> list[Any] | None:
    try:
        items = json.loads(row["parts"])
    except (TypeError, ValueError, RecursionError):
        notes.append(f"message {row['id']}: its parts are not JSON; skipped")
        return None
    if not isinstance(items, list):
        notes.append(f"message {row['id']}: its parts are not a JSON list; skipped")
        return None
    return items


def _part(item: Any, mid: str, meta: dict[str, Any], conv: ImportedConversation) -> list[Part]:
    kind = item.get("type") if isinstance(item, dict) else None
    data = item.get("data") if isinstance(item, dict) else None
    if not isinstance(data, dict):
        conv.notes.append(f"message {mid}: a part without data ({as_text(kind) or '?'}); skipped")
        return []
    if kind == "text":
        return [Part("text", as_text(data.get("text")))]
    if kind == "reasoning":
        keep = {k: data[k] for k in ("signature", "thought_signature") if data.get(k)}
        return [Part("thinking", as_text(data.get("thinking")), meta=keep)] if (
            data.get("thinking") or keep) else []
    if kind == "tool_call":
        return [Part("tool_use", as_text(data.get("input")) or "{}",
                     tool_name=as_text(data.get("name")) or None,
                     tool_use_id=as_text(data.get("id")) or None,
                     meta={"provider_executed": True} if data.get("provider_executed") else {})]
    if kind == "tool_result":
        return _result(data, mid, conv)
    if kind == "image_url":
        url = as_text(data.get("url"))
        if url.startswith("data:image/") and ";base64," in url:
            head, b64 = url.split(";base64,", 1)
            return [image_part(b64, head.removeprefix("data:"), conv.notes, f"message {mid}")]
        return [Part("text", f"[image: {url}]", meta={"crush": "image_url"})]
    if kind == "binary":
        return [_binary(data, mid, conv)]
    if kind == "finish":
        meta["finish"] = {k: data[k] for k in ("reason", "time", "message", "details")
                          if data.get(k)}
        reason = as_text(data.get("reason"))
        if reason in _FAILED and (data.get("message") or data.get("details")):
            said = ": ".join(as_text(data[k]) for k in ("message", "details") if data.get(k))
            return [Part("text", f"[{reason}] {said}", meta={"crush": "finish"})]
        return []
    if kind == "shell_command":
        text = f"$ {as_text(data.get('command'))}\n{as_text(data.get('output'))}".rstrip("\n")
        return [Part("text", text, meta={"crush": "shell_command",
                                         "exit_code": data.get("exit_code")})]
    conv.ignored_records[f"part:{kind}"] += 1
    conv.notes.append(f"message {mid}: part type {kind!r} is not known; skipped")
    return []


def _result(data: dict[str, Any], mid: str, conv: ImportedConversation) -> list[Part]:
    name = as_text(data.get("name")) or None
    meta: dict[str, Any] = {}
    if data.get("metadata"):
        meta["metadata"] = data["metadata"]
    out = [Part("tool_result", as_text(data.get("content")), tool_name=name,
                tool_use_id=as_text(data.get("tool_call_id")) or None,
                is_error=bool(data.get("is_error")), meta=meta)]
    mime = as_text(data.get("mime_type"))
    if data.get("data") and mime.startswith("image/"):
        out.append(image_part(data["data"], mime, conv.notes, f"message {mid}"))
    return out


def _binary(data: dict[str, Any], mid: str, conv: ImportedConversation) -> Part:
    mime = as_text(data.get("MIMEType"))
    if mime.startswith("image/") and isinstance(data.get("Data"), str):
        part = image_part(data["Data"], mime, conv.notes, f"message {mid}")
        part.meta["path"] = as_text(data.get("Path"))
        return part
    return Part("text", f"[attachment: {as_text(data.get('Path')) or mime or 'file'}]",
                media_type=mime or None, meta={"crush": "binary"})
