"""llm's message store (messages by hash, threads, parts, fragments, turns) as trees."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.llm.parts import PART_COLUMNS, Lookups, convert, row_item
from explorer.formats.llm.sql import FORMAT, Row, select, usage
from explorer.formats.tool_pairs import pair_unnamed_calls
from explorer.tree.model import Message, Part, Role

MESSAGE_COLUMNS = (
    "rowid", "hash", "parent_hash", "role", "content", "datetime_utc", "provider_metadata",
)
TURN_COLUMNS = (
    "rowid", "parent_message_hash", "tip_message_hash", "model", "resolved_model",
    "input_tokens", "output_tokens", "duration_ms", "datetime_utc",
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
    turns = select(conn, "turns", TURN_COLUMNS, "ORDER BY datetime_utc, rowid") if (
        "turns" in tables) else []
    for group in _components(rows):
        keys = {r["key"] for r in group}
        conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                    source_path=str(path))
        parts = _stored_parts(conn, tables, group, conv)
        for r in group:
            conv.messages.append(_store_message(r, parts.get(r["key"]), conv))
        _apply_turns(conv, [t for t in turns if t["tip_message_hash"] in keys])
        pair_unnamed_calls(conv.messages, conv.notes)
        mine = [t for t in threads if t["tip_message_hash"] in keys]
        conv.meta["threads"] = [
            {"id": as_text(t["id"]), "name": t["name"], "tip": t["tip_message_hash"]} for t in mine
        ]
        newest = max(mine, key=lambda t: (parse_time(t["datetime_utc"]) or 0.0, t["rowid"]),
                     default=None)
        tip = newest["tip_message_hash"] if newest else None
        # The tree's oldest message names it: a thread added later (the same prompt asked
        # again, a continuation) makes another thread the newest, never another tree.
        # Imports before this named a tree by its newest thread; those ids find it too.
        conv.source_id = group[0]["key"]
        conv.source_aliases = [as_text(t["id"]) for t in mine if as_text(t["id"])]
        conv.title = (as_text(newest["name"]) if newest else "") or preview_title(
            conv.messages, group[0]["key"] or path.stem
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
    if row["provider_metadata"]:
        meta["provider_metadata"] = _json_or_text(row["provider_metadata"])
    return Message(row["key"], as_text(row["parent_hash"]) or None, role, parts,
                   created_at=parse_time(row["datetime_utc"]), source_id=row["key"],
                   source_meta=meta)


def _content_parts(content: object, key: str, conv: ImportedConversation) -> list[Part]:
    """Parts from a ``messages.content`` JSON value (a layout before the parts table)."""
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
    return [p for item in items for p in convert(item, key, Lookups(), conv.notes,
                                                 conv.ignored_records)]


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
    items = [row_item(r, conv.notes) for r in rows]
    lookups = Lookups(conn, tables)
    lookups.load(items)
    out: dict[str, list[Part]] = {}
    for r, item in zip(rows, items, strict=True):
        key = as_text(r["message_hash"])
        out.setdefault(key, []).extend(
            convert(item, key, lookups, conv.notes, conv.ignored_records))
    return out


def _apply_turns(conv: ImportedConversation, turns: list[Row]) -> None:
    """Model, usage and time of each call go on the messages it produced; the prompt
    it was sent with (and anything above it not yet dated) takes the call's time."""
    by_id = {m.id: m for m in conv.messages}
    for turn in turns:
        when = parse_time(turn["datetime_utc"])
        node: Hashable | None = turn["tip_message_hash"]
        first = True
        for _ in range(len(by_id)):
            if node is None or node == turn["parent_message_hash"] or node not in by_id:
                break
            m = by_id[node]
            if m.role == "assistant" and (turn["resolved_model"] or turn["model"]):
                m.model = as_text(turn["resolved_model"] or turn["model"])
            if first:
                m.usage = usage(turn["input_tokens"], turn["output_tokens"])
                if turn["duration_ms"] is not None:
                    m.source_meta["duration_ms"] = turn["duration_ms"]
                first = False
            m.created_at = m.created_at or when
            node = m.parent_id
        _date_inputs(by_id, turn["parent_message_hash"], when)


def _date_inputs(by_id: dict[Hashable, Message], node: Hashable | None,
                 when: float | None) -> None:
    for _ in range(len(by_id)):
        m = by_id.get(node) if node is not None else None
        if m is None or m.created_at is not None or when is None:
            return
        m.created_at = when
        node = m.parent_id


def _json_or_text(raw: object) -> object:
    try:
        return json.loads(raw) if isinstance(raw, str) else raw
    except (ValueError, RecursionError):
        return as_text(raw)
