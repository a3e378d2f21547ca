"""llm's message store (messages by hash, threads, parts, fragments, turns) as trees."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.llm.sql import FORMAT, Row, select, usage
from explorer.tree.model import Message, Part, Role

MESSAGE_COLUMNS = ("rowid", "hash", "parent_hash", "role", "content", "datetime_utc")
PART_COLUMNS = (
    "message_hash", "position", "type", "text", "fragment_id", "name", "arguments",
    "tool_call_id", "output", "exception",
)
TURN_COLUMNS = (
    "parent_message_hash", "tip_message_hash", "model", "input_tokens", "output_tokens",
    "datetime_utc",
)
ROLE_NAMES: dict[str, Role] = {
    "user": "user", "assistant": "assistant", "system": "system", "developer": "system",
    "tool": "tool",
}


def store_conversations(
    conn: sqlite3.Connection, tables: set[str], path: Path
) -> Iterator[ImportedConversation]:
    rows = select(conn, "messages", MESSAGE_COLUMNS, "ORDER BY rowid")
    for r in rows:
        r["key"] = as_text(r["hash"]) or f"rowid:{r['rowid']}"
    threads = select(
        conn, "threads", ("rowid", "id", "name", "tip_message_hash", "datetime_utc"),
        "ORDER BY rowid",
    ) if "threads" in tables else []
    turns = select(conn, "turns", TURN_COLUMNS, "ORDER BY rowid") if "turns" in tables else []
    for group in _components(rows):
        keys = {r["key"] for r in group}
        conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                    source_path=str(path))
        parts = _stored_parts(conn, tables, group, conv)
        for r in group:
            conv.messages.append(_store_message(r, parts.get(r["key"]), conv))
        _apply_turns(conv, [t for t in turns if t["tip_message_hash"] in keys])
        mine = [t for t in threads if t["tip_message_hash"] in keys]
        conv.meta["threads"] = [
            {"id": as_text(t["id"]), "name": t["name"], "tip": t["tip_message_hash"]} for t in mine
        ]
        newest = max(mine, key=lambda t: (parse_time(t["datetime_utc"]) or 0.0, t["rowid"]),
                     default=None)
        tip = newest["tip_message_hash"] if newest else None
        conv.source_id = as_text(newest["id"]) if newest else group[0]["key"]
        conv.title = (as_text(newest["name"]) if newest else "") or preview_title(
            conv.messages, conv.source_id or path.stem
        )
        conv.created_at = min((m.created_at for m in conv.messages if m.created_at), default=None)
        yield finish(conv, tip)


def _components(rows: list[Row]) -> list[list[Row]]:
    """Messages grouped into connected trees (cycles and dangling parents included)."""
    up: dict[str, str] = {}

    def find(key: str) -> str:
        while up.get(key, key) != key:
            up[key] = up.get(up[key], up[key])
            key = up[key]
        return key

    known = {r["key"] for r in rows}
    for r in rows:
        parent = as_text(r["parent_hash"])
        if parent in known:
            a, b = find(r["key"]), find(parent)
            if a != b:
                up[a] = b
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(find(r["key"]), []).append(r)
    return list(groups.values())


def _store_message(row: Row, parts: list[Part] | None, conv: ImportedConversation) -> Message:
    role_name = as_text(row["role"])
    role = ROLE_NAMES.get(role_name)
    meta: dict[str, Any] = {}
    if role is None:
        conv.notes.append(f"message {row['key']}: role {role_name!r} unknown; imported as user")
        role, meta["llm_role"] = "user", role_name
    if parts is None:
        parts = _content_parts(row["content"], row["key"], conv)
    return Message(row["key"], as_text(row["parent_hash"]) or None, role, parts,
                   created_at=parse_time(row["datetime_utc"]), source_id=row["key"],
                   source_meta=meta)


def _content_parts(content: object, key: str, conv: ImportedConversation) -> list[Part]:
    if content is None:
        return []
    try:
        value = json.loads(content) if isinstance(content, str | bytes) else content
    except (ValueError, RecursionError):
        conv.notes.append(f"message {key}: content is not JSON; kept it as text")
        return [Part("text", as_text(content))]
    if isinstance(value, str):
        return [Part("text", value)]
    items = value if isinstance(value, list) else [value]
    return [p for p in (_part(item, key, conv) for item in items) if p is not None]


def _part(item: object, key: str, conv: ImportedConversation) -> Part | None:
    if not isinstance(item, dict):
        conv.notes.append(f"message {key}: part {item!r:.40} is not an object; skipped")
        return None
    kind = as_text(item.get("type"))
    name = as_text(item.get("name")) or None
    call_id = as_text(item.get("tool_call_id")) or None
    if kind == "text":
        return Part("text", as_text(item.get("text")))
    if kind == "reasoning":
        return Part("thinking", as_text(item.get("text")))
    if kind == "tool_call":
        args = item.get("arguments")
        text = args if isinstance(args, str) else json.dumps(args, default=str)
        return Part("tool_use", text, tool_name=name, tool_use_id=call_id)
    if kind == "tool_result":
        error = item.get("exception")
        return Part("tool_result", as_text(item.get("output")) or as_text(error), tool_name=name,
                    tool_use_id=call_id, is_error=bool(error))
    if kind == "attachment":
        return Part("text", "[attachment]", meta={"llm_part": "attachment"})
    conv.ignored_records[f"part:{kind}"] += 1
    return None


def _stored_parts(
    conn: sqlite3.Connection, tables: set[str], group: list[Row], conv: ImportedConversation
) -> dict[str, list[Part]]:
    """Parts from the ``parts`` table for messages without a ``content`` column value."""
    if "parts" not in tables:
        return {}
    keys = [r["key"] for r in group if r["content"] is None]
    rows: list[Row] = []
    for start in range(0, len(keys), 500):
        chunk = tuple(keys[start : start + 500])
        marks = ", ".join("?" * len(chunk))
        rows += select(conn, "parts", PART_COLUMNS,
                        f"WHERE message_hash IN ({marks}) ORDER BY message_hash, position", chunk)
    fragments = _fragments(conn, tables, {r["fragment_id"] for r in rows if r["fragment_id"]})
    out: dict[str, list[Part]] = {}
    for r in rows:
        if r["text"] is None and r["fragment_id"] in fragments:
            r["text"] = fragments[r["fragment_id"]]
        part = _part(r, as_text(r["message_hash"]), conv)
        if part is not None:
            out.setdefault(as_text(r["message_hash"]), []).append(part)
    return out


def _fragments(conn: sqlite3.Connection, tables: set[str], ids: set[Any]) -> dict[Any, str]:
    if "fragments" not in tables or not ids:
        return {}
    rows = select(conn, "fragments", ("id", "content"))
    return {r["id"]: as_text(r["content"]) for r in rows if r["id"] in ids}


def _apply_turns(conv: ImportedConversation, turns: list[Row]) -> None:
    """Model, usage and time of each call go on the messages it produced."""
    by_id = {m.id: m for m in conv.messages}
    for turn in turns:
        node: Hashable | None = turn["tip_message_hash"]
        first = True
        for _ in range(len(by_id)):
            if node is None or node == turn["parent_message_hash"] or node not in by_id:
                break
            m = by_id[node]
            if m.role == "assistant" and turn["model"]:
                m.model = as_text(turn["model"])
            if first:
                m.usage = usage(turn["input_tokens"], turn["output_tokens"])
                first = False
            m.created_at = m.created_at or parse_time(turn["datetime_utc"])
            node = m.parent_id
