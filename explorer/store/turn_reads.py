"""What the turn view reads: per message its role, preview, tool counts and subagent link.

Two set-based queries (messages, then parts grouped by message) and one for the
spawning calls, so a 100,000-message conversation is read without loading text
beyond the stored previews. Subagent transcripts are recognised by what the
importers write: ``source_meta.subagent`` on their messages and
``source_meta.spawned_by_tool_use_id`` on their root. A user message an importer
marked ``source_meta.meta_record`` (a tool's own text, a slash command or its output), or
Claude Code's compaction summary (``isCompactSummary``), the model's text not a person's,
never opens a turn.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from explorer.tree.turn_view import TurnInput, opens_turn

_SEP = "\x1f"


@dataclass(frozen=True)
class SubagentInfo:
    """A subagent transcript's root, its name and the call that started it."""

    root: int
    agent_id: str
    name: str
    agent_type: str | None
    tool_use_id: str | None
    call_message: int | None  # the message holding the spawning call, if it is in the tree


@dataclass(frozen=True)
class TurnSource:
    messages: list[TurnInput]
    subagents: dict[Hashable, SubagentInfo]  # by root message id


def read_subagents(conn: sqlite3.Connection, conv_id: int) -> dict[Hashable, SubagentInfo]:
    """Every subagent transcript of the conversation, by its root message id."""
    roots = _subagent_roots(conn, conv_id)
    calls = _call_messages(conn, conv_id, [u for _, u in roots.values() if u])
    meta = _subagent_meta(conn, conv_id)
    subagents: dict[Hashable, SubagentInfo] = {}
    for root, (agent_id, use_id) in roots.items():
        info = meta.get(agent_id, {})
        name = _text(info.get("description")) or _text(info.get("agentType")) or agent_id
        subagents[root] = SubagentInfo(root, agent_id, name, _text(info.get("agentType")),
                                       use_id, calls.get(use_id) if use_id else None)
    return subagents


def read_turn_source(conn: sqlite3.Connection, conv_id: int) -> TurnSource:
    subagents = read_subagents(conn, conv_id)
    out: list[TurnInput] = []
    # Roles, models and tool lists repeat on every message: one object each, not 100,000.
    words: dict[str, str] = {}
    tool_lists: dict[str, tuple[str, ...]] = {}
    for (mid, parent, role, preview, meta_record, model, has_parts, calls_n, errors, others,
         texts, names) in conn.execute(_MESSAGES_WITH_PARTS, (conv_id, conv_id)):
        sub = subagents.get(mid)
        result_only = others == 0 and bool(has_parts)
        role = words.setdefault(role, role)
        model = words.setdefault(model, model) if model is not None else None
        out.append(TurnInput(
            mid, parent, role, preview,
            prompt=meta_record is None and opens_turn(role, result_only, preview),
            has_text=texts > 0, tool_calls=calls_n, tool_errors=errors,
            tools=tool_lists.setdefault(names, tuple(names.split(_SEP))) if names else (),
            subagent=sub.name if sub else None, spawned_by=sub.call_message if sub else None,
            model=model if role == "assistant" else None, record=meta_record is not None,
        ))  # fmt: skip
    return TurnSource(out, subagents)


# Each message with its parts' counts, joined in SQLite: by message, tool calls, error
# results, parts that are not results, text parts and the called tools' names (no
# Python dict of 100,000 count tuples on the side).
_MESSAGES_WITH_PARTS = (
    "SELECT m.id, m.parent_id, m.role, coalesce(m.preview, ''), "
    "coalesce(json_extract(m.source_meta, '$.meta_record'), CASE WHEN "
    "json_extract(m.source_meta, '$.isCompactSummary') THEN 'compact_summary' END), "
    "m.model, c.message_id IS NOT NULL, coalesce(c.calls, 0), coalesce(c.errors, 0), "
    "coalesce(c.others, 0), coalesce(c.texts, 0), coalesce(c.names, '') "
    "FROM messages m LEFT JOIN ("
    " SELECT p.message_id, sum(p.kind = 'tool_use') AS calls, "
    " sum(p.kind = 'tool_result' AND coalesce(p.is_error, 0) != 0) AS errors, "
    " sum(p.kind != 'tool_result') AS others, sum(p.kind = 'text') AS texts, "
    " group_concat(CASE WHEN p.kind = 'tool_use' THEN coalesce(p.tool_name, 'tool') END, "
    f" char({ord(_SEP)})) AS names "
    " FROM parts p JOIN messages pm ON pm.id = p.message_id WHERE pm.conversation_id = ? "
    " GROUP BY p.message_id) c ON c.message_id = m.id "
    "WHERE m.conversation_id = ? ORDER BY m.id"
)


def _subagent_roots(conn: sqlite3.Connection, conv_id: int) -> dict[int, tuple[str, str | None]]:
    """Roots that start a subagent transcript: (agent id, spawning tool_use id)."""
    rows = conn.execute(
        "SELECT id, json_extract(source_meta, '$.subagent'), "
        "json_extract(source_meta, '$.spawned_by_tool_use_id') FROM messages "
        "WHERE conversation_id = ? AND parent_id IS NULL AND source_meta IS NOT NULL "
        "AND json_valid(source_meta) "
        "AND json_type(source_meta, '$.spawned_by_tool_use_id') IS NOT NULL",
        (conv_id,),
    )
    return {int(mid): (str(agent or mid), str(use) if use else None) for mid, agent, use in rows}


def _call_messages(conn: sqlite3.Connection, conv_id: int, use_ids: list[str]) -> dict[str, int]:
    if not use_ids:
        return {}
    marks = ",".join("?" * len(use_ids))
    rows = conn.execute(
        "SELECT p.tool_use_id, min(p.message_id) FROM parts p "
        "JOIN messages m ON m.id = p.message_id "
        f"WHERE m.conversation_id = ? AND p.kind = 'tool_use' AND p.tool_use_id IN ({marks}) "
        "GROUP BY p.tool_use_id",
        (conv_id, *use_ids),
    )
    return {str(u): int(mid) for u, mid in rows}


def _subagent_meta(conn: sqlite3.Connection, conv_id: int) -> dict[str, dict[str, Any]]:
    row = conn.execute("SELECT meta FROM conversations WHERE id = ?", (conv_id,)).fetchone()
    try:
        meta = json.loads(row[0]) if row and row[0] else {}
    except ValueError:
        return {}
    subs = meta.get("subagents") if isinstance(meta, dict) else None
    if not isinstance(subs, list):
        return {}
    return {str(s["agent_id"]): s for s in subs
            if isinstance(s, dict) and s.get("agent_id") is not None}


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def subagent_links(conn: sqlite3.Connection, conv_id: int) -> dict[int, int]:
    """Subagent root → the message holding the call that started it (-1 when it is not stored)."""
    roots = _subagent_roots(conn, conv_id)
    calls = _call_messages(conn, conv_id, [u for _, u in roots.values() if u])
    return {root: calls.get(use, -1) if use else -1 for root, (_, use) in roots.items()}
