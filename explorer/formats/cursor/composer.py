"""The Cursor editor's composer chats, kept in a ``state.vscdb`` (VS Code's key-value
SQLite) under ``User/globalStorage`` in the ``cursorDiskKV`` table.

``composerData:<composer id>`` is one chat: ``name``, ``createdAt``/``lastUpdatedAt`` (ms),
``modelConfig.modelName`` and, in order, ``fullConversationHeadersOnly`` (``{bubbleId,
type}``) whose bubbles are stored apart under ``bubbleId:<composer id>:<bubble id>``;
older builds kept the bubbles inline in ``conversation``. A bubble of ``type`` 1 is the
person's, of type 2 the model's: ``text``, ``thinking.text``, ``tokenCount`` and, for a
tool step, ``toolFormerData`` holding the call (``name``, ``toolCallId``, ``rawArgs``) and
its ``result`` together. The tree keeps a call and its result apart, so such a bubble
becomes its words and call (key = the bubble id) and the result (``<bubble id>:result``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.cursor.sql import connect
from explorer.tree.model import Message, Part, Usage

FORMAT = "cursor"
_PENDING = (None, "", "loading", "pending", "running")


def has_composers(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT 1 FROM cursorDiskKV WHERE key LIKE 'composerData:%' LIMIT 1")
    return row.fetchone() is not None


def composer_marks(path: Path) -> dict[str, str]:
    """Each chat's ``lastUpdatedAt`` and length: a chat whose mark changed has news."""
    marks: dict[str, str] = {}
    for cid, data, _notes in _composers(path):
        headers = data.get("fullConversationHeadersOnly") or data.get("conversation") or []
        marks[cid] = f"{data.get('lastUpdatedAt')}:{len(headers)}"
    return marks


def read_composers(path: Path, only: set[str] | None = None) -> Iterator[ImportedConversation]:
    """Every chat with a message (those named in ``only``, when given), oldest first."""
    try:
        with closing(connect(path)) as conn:
            for cid, data, notes in _composers(path):
                if only is not None and cid not in only:
                    continue
                conv = _conversation(conn, cid, data, path, notes)
                if conv.messages:
                    yield conv
    except sqlite3.Error as exc:
        raise FormatError(f"{path.name}: a damaged Cursor state database ({exc})") from exc


def _composers(path: Path) -> list[tuple[str, dict[str, Any], list[str]]]:
    out: list[tuple[str, dict[str, Any], list[str]]] = []
    with closing(connect(path)) as conn:
        rows = conn.execute("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%'")
        for key, value in rows:
            notes: list[str] = []
            data = _json(value, str(key), notes)
            if data is None:
                continue  # a chat whose own record is unreadable has nothing to show
            out.append((str(key).split(":", 1)[1], data, notes))
    out.sort(key=lambda c: (parse_time(c[1].get("createdAt")) or 0.0, c[0]))
    return out


def _conversation(conn: sqlite3.Connection, cid: str, data: dict[str, Any], path: Path,
                  notes: list[str]) -> ImportedConversation:
    conv = ImportedConversation(title=as_text(data.get("name")).strip()[:80], source_format=FORMAT,
                                messages=[], source_id=cid, source_path=str(path),
                                created_at=parse_time(data.get("createdAt")), notes=notes)
    conv.meta["agent"] = "cursor-editor"
    for key in ("unifiedMode", "forceMode", "status"):
        if isinstance(data.get(key), str):
            conv.meta[key] = data[key]
    config = data.get("modelConfig")
    model = as_text(config.get("modelName")) if isinstance(config, dict) else ""
    last: str | None = None
    for bubble in _bubbles(conn, cid, data, notes):
        for message in _bubble_messages(bubble, last, model or None, conv):
            conv.messages.append(message)
            last = str(message.id)
    conv.title = conv.title or preview_title(conv.messages, cid)
    return finish(conv, last)


def _bubbles(conn: sqlite3.Connection, cid: str, data: dict[str, Any],
             notes: list[str]) -> Iterator[dict[str, Any]]:
    headers = data.get("fullConversationHeadersOnly")
    if not isinstance(headers, list):
        inline = data.get("conversation")
        yield from (b for b in inline if isinstance(b, dict)) if isinstance(inline, list) else ()
        return
    for header in headers:
        bid = as_text(header.get("bubbleId")) if isinstance(header, dict) else ""
        row = conn.execute("SELECT value FROM cursorDiskKV WHERE key = ?",
                           (f"bubbleId:{cid}:{bid}",)).fetchone()
        if row is None:
            notes.append(f"bubble {bid}: listed but not stored; skipped")
            continue
        bubble = _json(row[0], f"bubble {bid}", notes)
        if bubble is not None:
            bubble.setdefault("bubbleId", bid)
            yield bubble


def _bubble_messages(bubble: dict[str, Any], parent: str | None, model: str | None,
                     conv: ImportedConversation) -> list[Message]:
    bid = as_text(bubble.get("bubbleId"))
    kind = bubble.get("type")
    when = parse_time(bubble.get("createdAt")) or conv.created_at
    if kind == 1:
        text = as_text(bubble.get("text"))
        return [Message(bid, parent, "user", [Part("text", text)], when, source_id=bid)] \
            if text.strip() else []
    if kind != 2:
        conv.ignored_records[f"bubble type {kind}"] += 1
        return []
    info = bubble.get("modelInfo")
    model = (as_text(info.get("modelName")) if isinstance(info, dict) else "") or model
    parts: list[Part] = []
    thinking = bubble.get("thinking")
    if isinstance(thinking, dict) and as_text(thinking.get("text")).strip():
        parts.append(Part("thinking", as_text(thinking.get("text"))))
    if as_text(bubble.get("text")).strip():
        parts.append(Part("text", as_text(bubble.get("text"))))
    tool = bubble.get("toolFormerData")
    result = None
    if isinstance(tool, dict) and as_text(tool.get("name")):
        use, result = _tool(tool, bid)
        parts.append(use)
    if not parts:
        conv.ignored_records["empty assistant bubble"] += 1
        return []
    out = [Message(bid, parent, "assistant", parts, when, model, _usage(bubble), source_id=bid)]
    if result is not None:
        out.append(Message(f"{bid}:result", bid, "tool", [result], when,
                           source_id=f"{bid}:result"))
    return out


def _tool(tool: dict[str, Any], bid: str) -> tuple[Part, Part | None]:
    name = as_text(tool.get("name"))
    call = as_text(tool.get("toolCallId")) or f"{bid}#tool"
    args = tool.get("rawArgs") if tool.get("rawArgs") not in (None, "") else tool.get("params")
    use = Part("tool_use", args if isinstance(args, str) else json.dumps(
        args or {}, ensure_ascii=False, default=str), tool_name=name, tool_use_id=call)
    status = tool.get("status")
    raw = tool.get("result")
    if raw in (None, "") and status in _PENDING:
        return use, None  # the call still waits (P3 marks the chat)
    failed = status in ("error", "cancelled", "rejected") or tool.get("userDecision") == "rejected"
    text = as_text(raw) if raw not in (None, "") else f"[{status}]"
    return use, Part("tool_result", text, tool_name=name, tool_use_id=call, is_error=failed,
                     meta={"status": status} if isinstance(status, str) else {})


def _usage(bubble: dict[str, Any]) -> Usage | None:
    counts = bubble.get("tokenCount")
    if not isinstance(counts, dict):
        return None
    given = [counts.get(k) for k in ("inputTokens", "outputTokens")]
    if not any(isinstance(n, int) and n > 0 for n in given):
        return None  # Cursor writes zeros where it kept no count
    return Usage(*(n if isinstance(n, int) and not isinstance(n, bool) else None for n in given))


def _json(value: Any, where: str, notes: list[str]) -> dict[str, Any] | None:
    try:
        data = json.loads(value)
    except (TypeError, ValueError, RecursionError):
        notes.append(f"{where}: not JSON; skipped")
        return None
    if not isinstance(data, dict):
        notes.append(f"{where}: not a JSON object; skipped")
        return None
    return data
