"""The context figure's per-message costs read as columns: SQLite does every per-part step.

The figure used to cost a message from its parts' stored sizes in Python: a tuple per
part read, a loop per part and per message, a row added at a time (that reading is kept
with the tests, as the reference these columns must equal).
On a 100,000-message session that was most of the figure's CPU. Here one statement per
chunk sums each message's parts in SQLite (the bucket and raw cost of each part by the
estimator's rules, the text and image sums, the measured prompt of its usage, the
signature of its parts), in id order so that nothing is sorted, and hands the message
and part columns back as two hex strings that become arrays in C (as
``store.turn_columns`` does): Python takes no step per part or per message. What the
rules cannot say in SQL is priced in Python once per distinct value (a tool name's
tokens, an image size's price) and kept with the table. A message with a part not
sized yet is left to the caller, which costs it from its text.
"""

from __future__ import annotations

import json
import sqlite3
from array import array
from collections.abc import Sequence

import numpy as np

from explorer.app.context.costs import CostTable
from explorer.app.context.sizes import _BUCKET, _records, tokens_sql
from explorer.compaction.estimate import UNKNOWN_IMAGE_SIDE, Estimator
from explorer.compaction.target import Target

_SIDE = ("CASE WHEN p.image_width IS NULL OR p.image_height IS NULL THEN 'i:' "
         "ELSE 'i:' || p.image_width || 'x' || p.image_height END")
_NAME = "'t:' || coalesce(p.tool_name, '')"
_BITS = 5  # a part's cell: raw << 5 | bucket << 1 | is image

_KEYS = (
    f"SELECT DISTINCT {_NAME}, NULL, NULL FROM parts p WHERE p.message_id IN "
    "(SELECT value FROM json_each(:ids)) AND p.kind = 'tool_use' "
    f"UNION SELECT DISTINCT {_SIDE}, p.image_width, p.image_height FROM parts p "
    "WHERE p.message_id IN (SELECT value FROM json_each(:ids)) AND p.kind = 'image'")


def _query(redacted: bool) -> str:
    role = (f"CASE m.role WHEN 'system' THEN {_BUCKET['system']} WHEN 'assistant' THEN "
            f"{_BUCKET['assistant']} ELSE {_BUCKET['user']} END")
    usage = "CAST(m.usage ->> '$.{}' AS INTEGER)"
    measured = (f"CASE WHEN m.role = 'assistant' THEN ifnull({usage.format('input_tokens')}"
                f" + CASE WHEN :cached THEN ifnull({usage.format('cache_read_tokens')}, 0) + "
                f"ifnull({usage.format('cache_write_tokens')}, 0) ELSE 0 END, 0) ELSE 0 END")
    tokens = tokens_sql(redacted)
    price = f"(SELECT price FROM known WHERE key = {_SIDE})"
    name = f"(SELECT price FROM known WHERE key = {_NAME})"
    raw = (f"CASE p.kind WHEN 'image' THEN :po + {price} WHEN 'tool_use' THEN {tokens} + :tuo"
           f" + {name} WHEN 'tool_result' THEN {tokens} + :tro ELSE {tokens} + :po END")
    bucket = (f"CASE p.kind WHEN 'image' THEN CASE WHEN p.meta ->> '$.compaction' = 'snapshot' "
              f"THEN {_BUCKET['snapshots']} ELSE {_BUCKET['images']} END WHEN 'tool_use' THEN "
              f"{_BUCKET['tools']} WHEN 'tool_result' THEN {_BUCKET['tool_results']} "
              f"ELSE {role} END")
    unpriced = (f"(p.kind = 'image' AND {price} IS NULL) "
                f"OR (p.kind = 'tool_use' AND {name} IS NULL)")
    noted = ("ifnull(instr(m.source_meta, '\"request\"') > 0 "
             "OR instr(m.source_meta, '\"image_price\"') > 0, 0)")
    head = (f"({measured} << 8) | ({role} << 4) | (CASE WHEN m.role = 'assistant' "
            f"AND m.usage IS NOT NULL THEN {noted} ELSE 0 END << 3)")
    flags = f"(coalesce({unpriced}, 0) << 2) | ((p.size_chars IS NULL) << 1)"
    cell = f"({raw} << {_BITS}) | ({bucket} << 1) | (p.kind = 'image')"
    chunk = "m.id IN (SELECT value FROM json_each(:ids))"
    return f"""
WITH known AS MATERIALIZED (SELECT key, value AS price FROM json_each(:known))
SELECT (SELECT group_concat(cell, '') FROM (
  SELECT printf('%016x%016x', m.id, {head}) AS cell FROM messages m WHERE {chunk}
  ORDER BY m.id)),
(SELECT group_concat(cell, '') FROM (
  SELECT printf('%016x%016x%016x%016x', m.id, p.id, ifnull({cell}, 0), {flags}) AS cell
  FROM messages m JOIN parts p ON p.message_id = m.id WHERE {chunk} ORDER BY m.id, p.idx))
"""
# A subquery with ORDER BY under an aggregate is never flattened into it (SQLite's rule),
# so group_concat sees the rows in id order (which the primary key and the parts'
# (message_id, idx) index give without a sort): a row per message (its id, its measured
# prompt, role bucket and whether it may hold a record, if measured), and a row per part (its
# message, its id, its cost and bucket, whether it is sized and priced). One statement:
# one state of the file.


def cost_columns(conn: sqlite3.Connection, ids: Sequence[int], target: Target,
                 estimator: Estimator, table: CostTable) -> tuple[int, list[int]]:
    """Add to ``table`` the costs of the messages of ``ids`` whose parts are all sized (in
    id order); returns how many, and the ids of the others."""
    if not ids:
        return 0, []
    r = estimator.rules
    listed = json.dumps(list(ids))
    params: dict[str, object] = {
        "ids": listed, "known": json.dumps(table.prices), "rw": r.word_chars_per_token,
        "rp": r.punct_chars_per_token, "ra": r.non_ascii_chars_per_token,
        "po": r.part_overhead, "tuo": r.tool_use_overhead, "tro": r.tool_result_overhead,
        "mo": r.message_overhead, "cached": estimator.family in ("anthropic", "generic")}
    query = _query(target.redactor is not None)
    heads, cells = _read(conn, query, params)
    if len(cells) and (cells[:, 3] & 4).any():  # a tool name or image size not priced yet
        _price(conn, listed, estimator, table)
        params["known"] = json.dumps(table.prices)
        heads, cells = _read(conn, query, params)
    return _add(table, heads, cells, r.message_overhead, conn)


def _read(conn: sqlite3.Connection, query: str, params: dict[str, object]
          ) -> tuple[np.ndarray, np.ndarray]:
    heads, cells = conn.execute(query, params).fetchone()
    return _cells(heads).reshape(-1, 2), _cells(cells).reshape(-1, 4)


def _add(table: CostTable, heads: np.ndarray, cells: np.ndarray, overhead: int,
         conn: sqlite3.Connection) -> tuple[int, list[int]]:
    """Each message's sums over its part rows (a contiguous run of them, in both orders)."""
    mids, head = heads[:, 0], heads[:, 1]
    owner, flags = cells[:, 0], cells[:, 3]
    first = np.searchsorted(owner, mids, "left")
    end = np.searchsorted(owner, mids, "right")
    raw, image = cells[:, 2] >> _BITS, cells[:, 2] & 1

    def sums(values: np.ndarray) -> np.ndarray:
        running = np.concatenate(([0], np.cumsum(values)))
        return running[end] - running[first]

    count = end - first
    top = np.zeros(len(mids), dtype=np.int64)
    full = count > 0
    if full.any():
        top[full] = np.maximum.reduceat(cells[:, 1], first[full])
    bad = sums(flags & 2) != 0
    good = ~bad
    unsized = [int(i) for i in mids[bad]]
    keep = np.repeat(good, count)
    before = len(table)
    table.add_columns(
        _q(mids[good]), _q(count[good]), _q(top[good]),
        _q(overhead + sums(raw * (1 - image))[good]), _q(sums(raw * image)[good]),
        _q((head >> 8)[good]), (head >> 4 & 15)[good].astype(np.uint8).tobytes(),
        (cells[keep, 2] >> 1 & 15).astype(np.uint8).tobytes(), _q(raw[keep]),
        image[keep].astype(np.uint8).tobytes())
    noted = np.flatnonzero((head[good] & 8 != 0) & (head[good] >> 8 != 0))  # measured ones
    if len(noted):  # the few answers whose metadata may hold a record
        ids = mids[good]
        _records(conn, table, {int(ids[k]): before + int(k) for k in noted})
    return int(good.sum()), unsized


def _price(conn: sqlite3.Connection, ids: str, estimator: Estimator, table: CostTable) -> None:
    """The chunk's tool names and image sizes priced (once for the table's life)."""
    for key, width, height in conn.execute(_KEYS, {"ids": ids}):
        if key in table.prices:
            continue
        if key.startswith("t:"):
            table.prices[key] = estimator.text_tokens(key[2:])
        else:
            known = width is not None and height is not None
            table.prices[key] = estimator.image_price(
                *((width, height) if known else (UNKNOWN_IMAGE_SIDE, UNKNOWN_IMAGE_SIDE)))


def _q(column: np.ndarray) -> array[int]:
    out = array("q")
    out.frombytes(np.ascontiguousarray(column, dtype=np.int64).tobytes())
    return out


def _cells(text: str | None) -> np.ndarray:
    """Big-endian 64-bit integers from hex digits, as ``printf('%016x')`` wrote them."""
    return np.frombuffer(bytes.fromhex(text or ""), dtype=">i8").astype(np.int64)
