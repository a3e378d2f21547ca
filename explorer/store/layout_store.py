"""Stored graph layouts, and the per-message marks the graph draws beside the skeleton.

A layout is one packed blob per conversation (ids, columns, depths), so reopening
a 100,000-message tree costs one read instead of a layout. It is stamped with the
conversation's message count and highest message id: a tree that grew (or lost
messages) no longer matches its stamp and is laid out again.
"""

from __future__ import annotations

import sqlite3
import struct
import sys
import time
from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from explorer.store.turn_columns import hex_array
from explorer.tree.columns import IdIndex

LAYOUT_VERSION = 1
_MAGIC = b"CXLY"
_HEADER = struct.Struct("<4sII")  # magic, version, node count

# Bits of ``message_flags``.
TOOL_CALL = 1
TOOL_RESULT = 2
ERROR = 4


@dataclass(frozen=True)
class StoredLayout:
    ids: array[int]
    xs: array[float]
    depths: array[int]
    computed_at: float


def conversation_stamp(conn: sqlite3.Connection, conv_id: int) -> tuple[int, int]:
    """(message count, highest message id): what a stored layout must still match."""
    row = conn.execute(
        "SELECT count(*), coalesce(max(id), 0) FROM messages WHERE conversation_id = ?",
        (conv_id,),
    ).fetchone()
    return int(row[0]), int(row[1])


def pack_layout(ids: array[int], xs: array[float], depths: array[int]) -> bytes:
    """Little-endian header, then int64 ids, float64 columns and int32 depths."""
    n = len(ids)
    if not len(xs) == len(depths) == n:
        raise ValueError(f"layout arrays differ in length: {n}, {len(xs)}, {len(depths)}")
    packed = [_little_endian(array("q", ids)), _little_endian(array("d", xs)),
              _little_endian(array("i", depths))]
    return _HEADER.pack(_MAGIC, LAYOUT_VERSION, n) + b"".join(packed)


def _little_endian(a: array[int] | array[float]) -> bytes:
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def unpack_layout(data: bytes) -> tuple[array[int], array[float], array[int]] | None:
    """The three arrays, or None for a blob of another version or a damaged one."""
    if len(data) < _HEADER.size:
        return None
    magic, version, n = _HEADER.unpack_from(data)
    if magic != _MAGIC or version != LAYOUT_VERSION or len(data) != _HEADER.size + 20 * n:
        return None
    at = _HEADER.size
    ids, xs, depths = array("q"), array("d"), array("i")
    for a, size in ((ids, 8), (xs, 8), (depths, 4)):
        a.frombytes(data[at : at + size * n])
        at += size * n
    if sys.byteorder == "big":
        for a in (ids, xs, depths):
            a.byteswap()
    return ids, xs, depths


def load_layout(conn: sqlite3.Connection, conv_id: int) -> StoredLayout | None:
    """The stored layout if it still matches the conversation, else None."""
    row = conn.execute(
        "SELECT version, message_count, max_message_id, data, computed_at FROM layouts "
        "WHERE conversation_id = ?",
        (conv_id,),
    ).fetchone()
    if row is None or row[0] != LAYOUT_VERSION:
        return None
    if (row[1], row[2]) != conversation_stamp(conn, conv_id):
        return None
    arrays = unpack_layout(bytes(row[3]))
    if arrays is None or len(arrays[0]) != row[1]:
        return None
    return StoredLayout(*arrays, computed_at=float(row[4]))


def save_layout(
    conn: sqlite3.Connection, conv_id: int, ids: array[int], xs: array[float],
    depths: array[int],
) -> float:
    """Store a layout of exactly the messages in ``ids``; returns its ``computed_at``.

    The stamp comes from ``ids``, not from the table: a message added after the
    layout was computed leaves the stamp stale, so the next open lays out again.
    Run it through the store's writer (one transaction).
    """
    data = pack_layout(ids, xs, depths)
    now = time.time()
    conn.execute(
        "INSERT OR REPLACE INTO layouts "
        "(conversation_id, version, message_count, max_message_id, data, computed_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (conv_id, LAYOUT_VERSION, len(ids), max(ids, default=0), data, now),
    )
    return now


def message_flags(conn: sqlite3.Connection, conv_id: int) -> Mapping[int, int]:
    """Bits (TOOL_CALL, TOOL_RESULT, ERROR) for the messages that have any of them.

    Two arrays (ids ascending, their bits) read as hex columns: on a 100,000-message
    session a dict of them cost ~5 MB and a Python loop over every flagged message."""
    ids, bits = conn.execute(
        "SELECT group_concat(printf('%016x', message_id), ''), "
        "group_concat(printf('%02x', bits), '') FROM ("
        "SELECT p.message_id, max(p.kind = 'tool_use') * ? | max(p.kind = 'tool_result') * ? "
        "| max(coalesce(p.is_error, 0) != 0) * ? AS bits FROM parts p "
        "JOIN messages m ON m.id = p.message_id WHERE m.conversation_id = ? "
        "AND (p.kind IN ('tool_use', 'tool_result') OR p.is_error) GROUP BY p.message_id "
        "ORDER BY p.message_id)",
        (TOOL_CALL, TOOL_RESULT, ERROR, conv_id),
    ).fetchone()
    index = IdIndex.from_sorted(hex_array("q", ids), array("B", bytes.fromhex(bits or "")))
    return cast(Mapping[int, int], index)
