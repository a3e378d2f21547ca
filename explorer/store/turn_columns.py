"""Reading a conversation's turn columns straight into arrays.

Python's sqlite3 makes a tuple and an int object per row and value, all while holding
the GIL; on a 100,000-message session that was most of the graph worker's GIL time
(and the UI thread waited for it). Here SQLite does the per-message work (counts,
flags, parent positions, name codes) with the GIL released, and hands each column
back as one hex string that becomes an array in C: no Python object per message.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from array import array
from collections.abc import Iterator
from contextlib import contextmanager

from explorer.tree.turn_source import TurnColumns
from explorer.tree.turn_view import NOT_PROMPTS

_WS = "' ' || char(9, 10, 11, 12, 13)"  # what str.lstrip() strips, in ASCII
_NOT_PROMPT = " OR ".join(
    f"substr(ltrim(m.preview, {_WS}), 1, {len(p)}) = :np{k}" for k, p in enumerate(NOT_PROMPTS))

_MESSAGES = f"""
WITH m AS (
  SELECT id, parent_id, role, coalesce(preview, '') AS preview, model,
    coalesce(json_extract(source_meta, '$.meta_record'), CASE WHEN
      json_extract(source_meta, '$.isCompactSummary') THEN 'compact_summary' END)
      IS NOT NULL AS record
  FROM messages WHERE conversation_id = :conv),
pos AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM m),
c AS (
  SELECT p.message_id, sum(p.kind = 'tool_use') AS calls,
    sum(p.kind = 'tool_result' AND coalesce(p.is_error, 0) != 0) AS errors,
    sum(p.kind != 'tool_result') AS others, sum(p.kind = 'text') AS texts
  FROM parts p JOIN messages pm ON pm.id = p.message_id WHERE pm.conversation_id = :conv
  GROUP BY p.message_id),
models AS ({"SELECT model, row_number() OVER (ORDER BY model) AS k FROM ("
            "SELECT DISTINCT model FROM m WHERE role = 'assistant' AND model != '')"}),
rows AS (
  SELECT m.id, coalesce(pos.k, -1) AS parent,
    (m.role = 'user' AND NOT m.record AND NOT (c.message_id IS NOT NULL AND c.others = 0)
      AND NOT ({_NOT_PROMPT}))
    | ((m.role = 'assistant' AND coalesce(c.texts, 0) > 0 AND m.preview != '') << 1)
    | (m.record << 2) | ((m.role = 'system') << 3) AS bits,
    coalesce(c.calls, 0) AS calls, coalesce(c.errors, 0) AS errors,
    coalesce(models.k, 0) AS model,
    sum(coalesce(c.calls, 0)) OVER (ORDER BY m.id ROWS UNBOUNDED PRECEDING) AS tools_end
  FROM m LEFT JOIN c ON c.message_id = m.id LEFT JOIN pos ON pos.id = m.parent_id
  LEFT JOIN models ON models.model = m.model AND m.role = 'assistant'
  ORDER BY m.id)
SELECT group_concat(printf('%016x', id), ''),
  group_concat(printf('%08x', parent & 4294967295), ''), group_concat(printf('%02x', bits), ''),
  group_concat(printf('%08x', calls), ''), group_concat(printf('%08x', errors), ''),
  group_concat(printf('%08x', model), ''), group_concat(printf('%08x', tools_end), '')
FROM rows
"""
# A subquery with ORDER BY under an aggregate is never flattened into it (SQLite's rule),
# so each group_concat sees the rows in id order.

_MODEL_NAMES = (
    "SELECT json_group_array(model) FROM (SELECT DISTINCT model FROM messages "
    "WHERE conversation_id = :conv AND role = 'assistant' AND model != '' ORDER BY model)"
)

_TOOLS = """
WITH w AS (
  SELECT name, row_number() OVER (ORDER BY name) - 1 AS k FROM (
    SELECT DISTINCT coalesce(p.tool_name, 'tool') AS name FROM parts p
    JOIN messages m ON m.id = p.message_id
    WHERE m.conversation_id = :conv AND p.kind = 'tool_use'))
SELECT (SELECT json_group_array(name) FROM (SELECT name FROM w ORDER BY k)),
  (SELECT group_concat(printf('%08x', k), '') FROM (
    SELECT w.k FROM parts p JOIN messages m ON m.id = p.message_id
    JOIN w ON w.name = coalesce(p.tool_name, 'tool')
    WHERE m.conversation_id = :conv AND p.kind = 'tool_use' ORDER BY p.message_id, p.idx))
"""


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Several reads that see one state of the file (a writer may commit between them)."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")


def read_turn_columns(conn: sqlite3.Connection, conv_id: int) -> TurnColumns:
    """The messages in id order; run it inside :func:`read_snapshot` with any other read."""
    params: dict[str, object] = {"conv": conv_id}
    params.update({f"np{k}": p for k, p in enumerate(NOT_PROMPTS)})
    ids, parents, bits, calls, errors, models, tools_end = conn.execute(
        _MESSAGES, params).fetchone()
    names = conn.execute(_MODEL_NAMES, {"conv": conv_id}).fetchone()[0]
    words, items = conn.execute(_TOOLS, {"conv": conv_id}).fetchone()
    tool_starts = array("I", [0])
    tool_starts.extend(hex_array("I", tools_end))
    return TurnColumns(
        ids=hex_array("q", ids), parents=hex_array("i", parents),
        bits=bytearray(bytes.fromhex(bits or "")), calls=hex_array("I", calls),
        errors=hex_array("I", errors), models=hex_array("I", models),
        tool_starts=tool_starts, tool_items=hex_array("I", items),
        model_names=["", *json.loads(names or "[]")], tool_words=json.loads(words or "[]"),
        ids_sorted=True,
    )


def hex_array(code: str, text: str | None) -> array[int]:
    """An array from big-endian hex digits, as ``printf('%0Nx')`` wrote them (N: 2 × size)."""
    out = array(code)
    if text:
        out.frombytes(bytes.fromhex(text))
        if sys.byteorder == "little":
            out.byteswap()
    return out
