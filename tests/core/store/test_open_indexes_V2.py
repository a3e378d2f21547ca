"""Opening a conversation reads metadata and part shapes through their own indexes (V2).

A real 127,000-message session holds 72 MB of metadata and 65 MB of part texts; the reads
made at open used to page through both. The answers must stay exactly what the JSON
says, whichever messages the index holds.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from explorer.store.boundary import _PATH_TOOL_PARTS, clean_boundary
from explorer.store.connection import open_connection
from explorer.store.layout_store import message_flags
from explorer.store.marks import edits, merge_links, merges_and_edits
from explorer.store.meta_keys import MARKED, MARKED_ROWS
from explorer.store.migrations import migrate
from explorer.store.turn_columns import read_turn_columns
from explorer.store.turn_reads import _subagent_roots

RECORD = 4  # TurnColumns.bits: a record a tool kept for itself

METAS: list[object] = [
    None,
    {"cwd": "/srv"},
    {"meta_record": "command"},
    {"isCompactSummary": True},
    {"isCompactSummary": False},
    {"merged_from": {"tip": 3}},
    {"edited_from": 2},
    {"note": "a value that says \"meta_record\" and \"edited_from\""},
    {"nested": {"meta_record": "x"}},
    {"spawned_by_tool_use_id": "toolu_1", "subagent": "a1"},
    ["merged_from", "edited_from"],  # the keys as values of a list
]


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    c = open_connection(tmp_path / "m.db")
    migrate(c)
    c.execute("INSERT INTO conversations(id, title, tip_id) VALUES (1, 't', ?)", (len(METAS),))
    for mid, meta in enumerate(METAS, start=1):
        text = None if meta is None else json.dumps(meta)
        root = mid == 1 or (isinstance(meta, dict) and "spawned_by_tool_use_id" in meta)
        c.execute("INSERT INTO messages(id, conversation_id, parent_id, role, source_meta, "
                  "preview) VALUES (?, 1, ?, ?, ?, 'said')",
                  (mid, None if root else mid - 1, "user" if mid % 2 else "assistant", text))
        c.execute("INSERT INTO parts(message_id, idx, kind, text, tool_name, tool_use_id, "
                  "is_error) VALUES (?, 0, ?, 'x', ?, ?, ?)",
                  (mid, "tool_use" if mid % 3 == 0 else "text",
                   "Bash" if mid % 3 == 0 else None, f"u{mid}" if mid % 3 == 0 else None,
                   None))
    c.commit()
    return c


def _meta(mid: int) -> dict[str, object]:
    meta = METAS[mid - 1]
    return meta if isinstance(meta, dict) else {}


def _plan(conn: sqlite3.Connection, sql: str, params: object) -> str:
    return " | ".join(r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))


def test_V2_merges_and_edits_are_what_the_metadata_says(conn: sqlite3.Connection) -> None:
    merges = [(3, 6)]
    edited = {7: 2}
    assert merges_and_edits(conn, 1) == (merges, edited)
    assert merge_links(conn, 1) == merges
    assert edits(conn, 1) == edited


def test_V2_records_and_subagent_roots_are_what_the_metadata_says(
        conn: sqlite3.Connection) -> None:
    columns = read_turn_columns(conn, 1)
    recorded = {mid for mid, bits in zip(columns.ids, columns.bits, strict=True)
                if bits & RECORD}
    assert recorded == {mid for mid in range(1, len(METAS) + 1)
                        if _meta(mid).get("meta_record") or _meta(mid).get("isCompactSummary")}
    assert recorded == {3, 4}
    assert _subagent_roots(conn, 1) == {10: ("a1", "toolu_1", None)}


def test_V2_the_metadata_reads_go_through_the_partial_index(conn: sqlite3.Connection) -> None:
    held = {r[0] for r in conn.execute(
        f"SELECT rowid FROM messages INDEXED BY messages_meta_keys "
        f"WHERE conversation_id = 1 AND {MARKED}")}
    assert held == {3, 4, 5, 6, 7, 9, 10, 11}  # false matches are fine, misses are not
    for sql in (f"SELECT id FROM {MARKED_ROWS} WHERE conversation_id = ? AND {MARKED}",
                f"SELECT id FROM {MARKED_ROWS} WHERE conversation_id = ? AND {{MARKED}} "
                "AND json_extract(source_meta, '$.edited_from') IS NOT NULL"):
        assert "messages_meta_keys" in _plan(conn, sql.replace("{MARKED}", MARKED), (1,))


def test_V2_the_tool_reads_stay_in_the_parts_shape_index(conn: sqlite3.Connection) -> None:
    plan = _plan(conn, _PATH_TOOL_PARTS, (len(METAS),))
    assert "COVERING INDEX parts_shape" in plan
    assert message_flags(conn, 1)  # the flags read answers from the same index
    flags_plan = _plan(conn, "SELECT p.message_id, p.kind, p.is_error FROM parts p "
                       "JOIN messages m ON m.id = p.message_id WHERE m.conversation_id = ?",
                       (1,))
    assert "COVERING INDEX parts_shape" in flags_plan
    assert clean_boundary(conn, len(METAS)) is not None
