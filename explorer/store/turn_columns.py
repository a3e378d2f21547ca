"""Reading a conversation's turn columns straight into arrays.

Python's sqlite3 makes a tuple and an int object per row and value, all while holding
the GIL; on a 100,000-message session that was most of the graph worker's GIL time
(and the UI thread waited for it). Here SQLite does the per-message work (counts,
flags, name codes) with the GIL released, and hands each column back as one string of
decimal numbers that becomes an array without a Python object kept per message.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import accumulate

from explorer.store.meta_keys import MARKED, MARKED_ROWS
from explorer.tree.turn_source import (
    ANSWER,
    CALLS,
    FAILS,
    PROMPT,
    RECORD,
    RESULTS,
    SYSTEM,
    TurnColumns,
)
from explorer.tree.turn_view import NOT_PROMPTS

assert max(PROMPT, ANSWER, SYSTEM) < 10 and CALLS | RESULTS | FAILS < 10  # one digit each

_WS = "' ' || char(9, 10, 11, 12, 13)"  # what str.lstrip() strips, in ASCII
_NOT_PROMPT = " OR ".join(f"substr(ltrim(m.preview, {_WS}), 1, {len(p)}) = :np{k}"
                          for k, p in enumerate(NOT_PROMPTS))

_MESSAGES = f"""
WITH models AS (
  SELECT model, row_number() OVER (ORDER BY model) AS k FROM (SELECT DISTINCT model
  FROM messages WHERE conversation_id = :conv AND role = 'assistant' AND model != '')),
rows AS (
  SELECT m.id, coalesce(m.parent_id, -1) AS parent,
    CASE m.role
      WHEN 'user' THEN {PROMPT} * (NOT (count(p.message_id) > 0
        AND coalesce(sum(p.kind != 'tool_result'), 0) = 0) AND NOT ({_NOT_PROMPT}))
      WHEN 'assistant' THEN {ANSWER} * (coalesce(sum(p.kind = 'text'), 0) > 0
        AND coalesce(m.preview, '') != '')
      WHEN 'system' THEN {SYSTEM} ELSE 0 END AS bits,
    coalesce(sum(p.kind = 'tool_use'), 0) AS calls,
    coalesce(sum(p.kind = 'tool_result' AND coalesce(p.is_error, 0) != 0), 0) AS errors,
    CASE WHEN m.role = 'assistant' THEN (SELECT k FROM models WHERE model = m.model) END AS k,
    {CALLS} * coalesce(max(p.kind = 'tool_use'), 0)
      | {RESULTS} * coalesce(max(p.kind = 'tool_result'), 0)
      | {FAILS} * coalesce(max(coalesce(p.is_error, 0) != 0), 0) AS part_bits
  FROM messages m LEFT JOIN parts p ON p.message_id = m.id
  WHERE m.conversation_id = :conv GROUP BY m.id ORDER BY m.id)
SELECT group_concat(id), group_concat(parent), group_concat(bits, ''),
  group_concat(calls), group_concat(errors), group_concat(coalesce(k, 0)),
  group_concat(part_bits, ''),
  (SELECT json_group_array(model) FROM (SELECT model FROM models ORDER BY k))
FROM rows
"""
# A subquery with ORDER BY under an aggregate is never flattened into it (SQLite's rule),
# so each group_concat sees the rows in id order. Each message's flags (PROMPT, ANSWER,
# SYSTEM: one decimal digit, the roles exclude each other) are worked out where its parts
# are counted, the preview's words only for a user message that is not all tool results.
# The columns come back as decimal text: SQLite writes an integer's digits several times
# faster than printf() formats it. A meta record is found through the metadata index by
# a read of its own (``_RECORDS``), not tested on every message; its bits are set after.

_RECORDS = f"""
SELECT group_concat(id) FROM {MARKED_ROWS} WHERE conversation_id = :conv AND {MARKED}
  AND coalesce(json_extract(source_meta, '$.meta_record'), CASE WHEN
    json_extract(source_meta, '$.isCompactSummary') THEN 'compact_summary' END) IS NOT NULL
"""

_TOOLS = """
SELECT json_group_array(name) FROM (
  SELECT coalesce(p.tool_name, 'tool') AS name FROM parts p JOIN messages m ON m.id = p.message_id
  WHERE m.conversation_id = :conv AND p.kind = 'tool_use' ORDER BY p.message_id, p.idx)
"""
# The calls' tool names in one pass (coded in Python: a second join to number them in SQL
# cost as much again).

_DIGITS = bytes((b - 48) % 256 for b in range(256))  # a translation: "0".."9" → 0..9


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
    ids, parents, bits, calls, errors, models, part_bits, names = conn.execute(
        _MESSAGES, params).fetchone()
    names_called: list[str] = json.loads(conn.execute(_TOOLS, {"conv": conv_id}).fetchone()[0])
    words = sorted(set(names_called))  # by code point: SQLite's BINARY order of UTF-8
    code = {w: k for k, w in enumerate(words)}
    id_column = int_array("q", ids)
    call_column = int_array("I", calls)
    flags = bytearray((bits or "").encode("ascii").translate(_DIGITS))
    _mark_records(flags, id_column, int_array("q", conn.execute(
        _RECORDS, {"conv": conv_id}).fetchone()[0]))
    return TurnColumns(
        ids=id_column, parents=parent_positions(id_column, int_array("q", parents)),
        bits=flags, calls=call_column,
        errors=int_array("I", errors), models=int_array("I", models),
        tool_starts=array("I", accumulate(call_column, initial=0)),
        tool_items=array("I", map(code.__getitem__, names_called)),
        model_names=["", *json.loads(names or "[]")], tool_words=words,
        ids_sorted=True,
        part_bits=bytearray((part_bits or "").encode("ascii").translate(_DIGITS)),
    )


def _mark_records(bits: bytearray, ids: array[int], records: array[int]) -> None:
    """A tool's own record is never a prompt, whatever its role and words."""
    for at in parent_positions(ids, records):
        if at >= 0:
            bits[at] = (bits[at] & ~PROMPT) | RECORD


def int_array(code: str, text: str | None) -> array[int]:
    """An array from comma-separated decimal integers, as ``group_concat`` wrote them."""
    return array(code, map(int, text.split(","))) if text else array(code)


def parent_positions(ids: array[int], parents: array[int]) -> array[int]:
    """Each parent id's position in ``ids`` (ascending), -1 for none or one outside them;
    by offset when the ids are one contiguous range, as an imported conversation's are."""
    if not ids:
        return array("i")
    low, high = ids[0], ids[-1]
    if high - low == len(ids) - 1:
        return array("i", (p - low if low <= p <= high else -1 for p in parents))
    out = array("i", [-1]) * len(parents)
    for i, p in enumerate(parents):
        at = bisect_left(ids, p)
        if at < len(ids) and ids[at] == p:
            out[i] = at
    return out


def hex_array(code: str, text: str | None) -> array[int]:
    """An array from big-endian hex digits, as ``printf('%0Nx')`` wrote them (N: 2 × size)."""
    out = array(code)
    if text:
        out.frombytes(bytes.fromhex(text))
        if sys.byteorder == "little":
            out.byteswap()
    return out
