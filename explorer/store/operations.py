"""The operation log: every tree action with what it takes to undo it (T8).

An operation is written in the same transaction as the change it records, so the
log never names a change that did not happen. Undone operations stay as history;
an undone one keeps, under ``redo`` in its record, what it takes to do it again,
until a new operation starts a new line of history.

The history is one line for the whole file, as ``convo undo`` walks it (the newest
action anywhere first): a new operation in any conversation forgets every undone
operation's redo record, so a redo never makes an old change again on top of
something done after its undo, whichever conversation either was in.
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
    drop_redo(conn)  # a new line of history, for the whole file
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


def last_undone(conn: sqlite3.Connection, conv_id: int | None = None) -> Operation | None:
    """The operation undone most recently that can still be redone (the redo stack's top)."""
    where = ("state = 'undone' AND json_extract(undo, '$.redo') IS NOT NULL"
             + (" AND conversation_id = ?" if conv_id is not None else ""))
    args = (conv_id,) if conv_id is not None else ()
    r = conn.execute(
        f"SELECT {_COLS} FROM operations WHERE {where} ORDER BY undone_at DESC, id ASC LIMIT 1",
        args,
    ).fetchone()
    return _op(r) if r else None


def set_undo(conn: sqlite3.Connection, op_id: int, undo: dict[str, Any]) -> None:
    conn.execute("UPDATE operations SET undo = ? WHERE id = ?",
                 (json.dumps(undo, sort_keys=True), op_id))


def drop_redo(
    conn: sqlite3.Connection, conv_id: int | None = None, before: float | None = None
) -> int:
    """Forget how to redo undone operations (a new operation, or a purge); returns how many."""
    terms = ["state = 'undone'", "json_extract(undo, '$.redo') IS NOT NULL"]
    args: list[Any] = []
    if conv_id is not None:
        terms.append("conversation_id = ?")
        args.append(conv_id)
    if before is not None:
        terms.append("undone_at < ?")
        args.append(before)
    cur = conn.execute(f"UPDATE operations SET undo = json_remove(undo, '$.redo') "
                       f"WHERE {' AND '.join(terms)}", args)
    return cur.rowcount


def history(
    conn: sqlite3.Connection, conv_id: int | None = None, limit: int = 50
) -> list[Operation]:
    where = "WHERE conversation_id = ?" if conv_id is not None else ""
    args: tuple[Any, ...] = (conv_id, limit) if conv_id is not None else (limit,)
    return [_op(r) for r in conn.execute(
        f"SELECT {_COLS} FROM operations {where} ORDER BY id DESC LIMIT ?", args
    )]


def set_state(conn: sqlite3.Connection, op_id: int, state: str) -> None:
    """``done`` (again, after a redo) clears the undo time; any other state stamps it."""
    conn.execute("UPDATE operations SET state = ?, undone_at = ? WHERE id = ?",
                 (state, None if state == "done" else time.time(), op_id))


def deletions(conn: sqlite3.Connection, tombstone_id: int) -> list[Operation]:
    """The delete operations that buried ``tombstone_id`` (one, unless redone)."""
    return [_op(r) for r in conn.execute(
        f"SELECT {_COLS} FROM operations WHERE kind = 'delete' "
        "AND json_extract(undo, '$.tombstone') = ? ORDER BY id DESC", (tombstone_id,))]


def retire_purged(conn: sqlite3.Connection, tombstone_ids: list[int]) -> None:
    """Deletions whose tombstone a purge dropped can no longer be undone: say so in the log."""
    for op_id, undo in conn.execute(
        "SELECT id, undo FROM operations WHERE kind = 'delete' AND state = 'done'"
    ).fetchall():
        if json.loads(undo).get("tombstone") in tombstone_ids:
            set_state(conn, op_id, "purged")
