"""The operation log: every tree action with what it takes to undo it (T8).

An operation is written in the same transaction as the change it records, so the
log never names a change that did not happen. Undone operations stay as history.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Operation:
    id: int
    conversation_id: int | None
    kind: str
    summary: str
    undo: dict[str, Any]
    state: str
    created_at: float


_COLS = "id, conversation_id, kind, coalesce(summary, ''), undo, state, created_at"


def _op(r: tuple[Any, ...]) -> Operation:
    return Operation(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6])


def record(
    conn: sqlite3.Connection, conv_id: int | None, kind: str, summary: str, undo: dict[str, Any]
) -> int:
    cur = conn.execute(
        "INSERT INTO operations(conversation_id, kind, summary, undo, state, created_at) "
        "VALUES (?,?,?,?,'done',?)",
        (conv_id, kind, summary, json.dumps(undo, sort_keys=True), time.time()),
    )
    return int(cur.lastrowid or 0)


def last_done(conn: sqlite3.Connection, conv_id: int | None = None) -> Operation | None:
    """The newest operation not yet undone (in one conversation, or anywhere)."""
    where = "state = 'done'" + (" AND conversation_id = ?" if conv_id is not None else "")
    args = (conv_id,) if conv_id is not None else ()
    r = conn.execute(
        f"SELECT {_COLS} FROM operations WHERE {where} ORDER BY id DESC LIMIT 1", args
    ).fetchone()
    return _op(r) if r else None


def history(
    conn: sqlite3.Connection, conv_id: int | None = None, limit: int = 50
) -> list[Operation]:
    where = "WHERE conversation_id = ?" if conv_id is not None else ""
    args: tuple[Any, ...] = (conv_id, limit) if conv_id is not None else (limit,)
    return [_op(r) for r in conn.execute(
        f"SELECT {_COLS} FROM operations {where} ORDER BY id DESC LIMIT ?", args
    )]


def set_state(conn: sqlite3.Connection, op_id: int, state: str) -> None:
    conn.execute("UPDATE operations SET state = ?, undone_at = ? WHERE id = ?",
                 (state, time.time(), op_id))


def retire_purged(conn: sqlite3.Connection, tombstone_ids: list[int]) -> None:
    """Deletions whose tombstone a purge dropped can no longer be undone: say so in the log."""
    for op_id, undo in conn.execute(
        "SELECT id, undo FROM operations WHERE kind = 'delete' AND state = 'done'"
    ).fetchall():
        if json.loads(undo).get("tombstone") in tombstone_ids:
            set_state(conn, op_id, "purged")
