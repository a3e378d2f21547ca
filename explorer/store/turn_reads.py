"""What the turn view reads: per message its role, tool counts and subagent link, as columns.

The columns come from :mod:`explorer.store.turn_columns` (arrays, no object per message);
previews are read afterwards only for the messages whose words label a turn. Subagent
transcripts are recognised by what the importers write: ``source_meta.subagent`` on
their messages and ``source_meta.spawned_by_tool_use_id`` on their root. A user message an
importer marked ``source_meta.meta_record`` (a tool's own text, a slash command or its output), or
Claude Code's compaction summary (``isCompactSummary``), the model's text not a person's,
never opens a turn.
"""

from __future__ import annotations

import json
import sqlite3
from array import array
from bisect import bisect_left
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from typing import Any, cast

from explorer.store.fetching import in_chunks
from explorer.store.layout_store import ERROR, TOOL_CALL, TOOL_RESULT
from explorer.store.meta_keys import MARKED, MARKED_ROWS
from explorer.store.turn_columns import read_snapshot, read_turn_columns
from explorer.tree.columns import IdIndex
from explorer.tree.turn_source import CALLS, FAILS, RESULTS, TurnColumns


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
    columns: TurnColumns | None  # None once grouped: the turn tree is all that is kept
    subagents: dict[Hashable, SubagentInfo]  # by root message id
    message_flags: Mapping[int, int] | None = None
    """The store's ``message_flags`` (tool call, result, error), read with the columns:
    the graph's marks need not read every part again (None: not read)."""


def read_subagents(conn: sqlite3.Connection, conv_id: int) -> dict[Hashable, SubagentInfo]:
    """Every subagent transcript of the conversation, by its root message id."""
    roots = _subagent_roots(conn, conv_id)
    calls = _spawning_messages(conn, conv_id, roots)
    meta = _subagent_meta(conn, conv_id)
    subagents: dict[Hashable, SubagentInfo] = {}
    for root, (agent_id, use_id, _started) in roots.items():
        info = meta.get(agent_id, {})
        name = _text(info.get("description")) or _text(info.get("agentType")) or agent_id
        subagents[root] = SubagentInfo(root, agent_id, name, _text(info.get("agentType")),
                                       use_id, calls.get(root))
    return subagents


def read_turn_source(conn: sqlite3.Connection, conv_id: int) -> TurnSource:
    """The conversation's messages as turn columns, read in one snapshot."""
    with read_snapshot(conn):
        subagents = read_subagents(conn, conv_id)
        columns = read_turn_columns(conn, conv_id)
    ids = cast("array[int]", columns.ids)
    for root, sub in subagents.items():
        at = bisect_left(ids, cast(int, root))
        if at < len(ids) and ids[at] == root:
            columns.subagents[at] = (sub.name, sub.call_message)
    return TurnSource(columns, subagents, tool_flags(columns))


_STORE_BITS = bytes((TOOL_CALL if b & CALLS else 0) | (TOOL_RESULT if b & RESULTS else 0)
                    | (ERROR if b & FAILS else 0) for b in range(256))


def tool_flags(columns: TurnColumns) -> Mapping[int, int] | None:
    """The messages with any tool bit, as :func:`~explorer.store.layout_store.message_flags`
    gives them (ids ascending, their bits), from the columns' part bits."""
    if not columns.ids_sorted or len(columns.part_bits) != len(columns):
        return None
    bits = columns.part_bits.translate(_STORE_BITS)
    ids = cast("array[int]", columns.ids)
    return cast(Mapping[int, int], IdIndex.from_sorted(
        array("q", compress(ids, bits)), array("B", bytes(filter(None, bits)))))


def read_previews(conn: sqlite3.Connection, ids: list[Hashable]
                  ) -> dict[Hashable, tuple[str, str]]:
    """(role, preview) of the given messages: the few whose words label the turns."""
    cursor = conn.execute(
        "SELECT id, role, coalesce(preview, '') FROM messages "
        "WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
    out: dict[Hashable, tuple[str, str]] = {}
    for rows in in_chunks(cursor):
        out.update(zip(map(itemgetter(0), rows), map(itemgetter(slice(1, 3)), rows),
                       strict=True))
    return out


Root = tuple[str, str | None, str | None]
"""A subagent root's agent id, spawning tool_use id, and the message it started from."""


def _subagent_roots(conn: sqlite3.Connection, conv_id: int) -> dict[int, Root]:
    """Roots that start a subagent transcript. A subagent with no spawning call (Claude
    Code's compaction agent) names the message it started from instead (``started_from``)."""
    rows = conn.execute(
        "SELECT id, json_extract(source_meta, '$.subagent'), "
        "json_extract(source_meta, '$.spawned_by_tool_use_id'), "
        "json_extract(source_meta, '$.started_from') FROM "
        f"{MARKED_ROWS} WHERE conversation_id = ? AND {MARKED} AND parent_id IS NULL "
        "AND json_valid(source_meta) "
        "AND json_type(source_meta, '$.spawned_by_tool_use_id') IS NOT NULL",
        (conv_id,),
    )
    return {int(mid): (str(agent or mid), str(use) if use else None,
                       str(started) if started else None)
            for mid, agent, use, started in rows}


def _spawning_messages(conn: sqlite3.Connection, conv_id: int,
                       roots: dict[int, Root]) -> dict[int, int]:
    """Each root's linked message: the one holding its spawning call, else the one it
    started from; a root whose link is not stored has none."""
    calls = _call_messages(conn, conv_id, [u for _, u, _ in roots.values() if u])
    starts = _started_messages(conn, conv_id,
                               [s for _, u, s in roots.values() if s and not u])
    out: dict[int, int] = {}
    for root, (_, use, started) in roots.items():
        found = calls.get(use) if use else starts.get(started) if started else None
        if found is not None:
            out[root] = found
    return out


def _started_messages(conn: sqlite3.Connection, conv_id: int,
                      keys: list[str]) -> dict[str, int]:
    if not keys:
        return {}
    rows = conn.execute(
        "SELECT source_id, min(id) FROM messages WHERE conversation_id = ? "
        "AND source_id IN (SELECT value FROM json_each(?)) GROUP BY source_id",
        (conv_id, json.dumps(keys)))
    return {str(k): int(mid) for k, mid in rows}


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
    linked = _spawning_messages(conn, conv_id, roots)
    return {root: linked.get(root, -1) for root in roots}
