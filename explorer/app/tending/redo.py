"""Redo the tree action undone last, exactly as it was the first time (T8).

An undo keeps, in the operation's record, what the change was: the rows a send
or an edit wrote, the ids a deletion buried (and under which tombstone), the
checkpoint or rewind row, the marks, the tip. Redo puts exactly that back in one
transaction and marks the operation done again, so undo then redo leaves every
row as it was after the action. A new operation anywhere in the file forgets the
undone ones' redo records (one line of history, the one ``convo undo`` walks), and so
does a purge.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from explorer.app.tending.tree_actions import Change, active_ids
from explorer.store import Store, StoreError, operations, tombstones, tree_writes
from explorer.store.marks import put_row
from explorer.tree.tending import TendingError, check_off_path


def _insert_row(conn: sqlite3.Connection, table: str, row: dict[str, Any] | None) -> None:
    if row is None:
        return
    cols = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    conn.execute(f"INSERT INTO {table}({cols}) VALUES ({marks})", list(row.values()))


def _bury_again(conn: sqlite3.Connection, conv_id: int, bury: dict[str, Any]) -> None:
    ids = [int(i) for i in bury["ids"]]
    present = {r[0] for r in conn.execute(
        "SELECT id FROM messages WHERE id IN (SELECT value FROM json_each(?))",
        (str(ids),))}
    if present != set(ids):
        raise StoreError("the restored branch changed since the undo; nothing was redone")
    try:
        check_off_path(ids[0], active_ids(conn, conv_id), "deleting")
    except TendingError as e:
        raise StoreError(str(e)) from e
    tombstones.bury(conn, conv_id, ids, int(bury["tombstone"]), bury.get("created_at"))


def _apply(conn: sqlite3.Connection, conv_id: int, redo: dict[str, Any]) -> dict[str, Any]:
    """The forward steps an undo recorded, in the order that keeps every reference whole."""
    changed: dict[str, Any] = {}
    if "rows" in redo:
        changed["restored"] = tombstones.put_back(conn, redo["rows"])
    if "bury" in redo:
        _bury_again(conn, conv_id, redo["bury"])
        changed["deleted"] = list(redo["bury"]["ids"])
    if "rewind" in redo:
        _insert_row(conn, "rewinds", redo["rewind"])
    if "checkpoint" in redo:
        _insert_row(conn, "checkpoints", redo["checkpoint"])
        if redo["checkpoint"] is not None:
            changed["checkpoint"] = redo["checkpoint"]["label"]
    for row in redo.get("marks", []):
        put_row(conn, int(row["message_id"]), row)
    if redo.get("marks"):
        changed["marks"] = [int(r["message_id"]) for r in redo["marks"]]
    if "tip" in redo:
        before = conn.execute("SELECT tip_id FROM conversations WHERE id = ?",
                              (conv_id,)).fetchone()[0]
        if redo["tip"] is None:
            conn.execute("UPDATE conversations SET tip_id = NULL WHERE id = ?", (conv_id,))
        else:
            tree_writes.branch(conn, conv_id, int(redo["tip"]))
        changed["tip"] = {"from": before, "to": redo["tip"]}
    return changed


def _redo(conn: sqlite3.Connection, conv_id: int | None) -> Change:
    op = operations.last_undone(conn, conv_id)
    if op is None:
        where = f" in conversation {conv_id}" if conv_id is not None else ""
        raise StoreError(f"nothing to redo{where}")
    target = op.conversation_id if op.conversation_id is not None else -1
    try:
        changed = _apply(conn, target, op.undo["redo"])
    except sqlite3.IntegrityError as e:
        raise StoreError(f"cannot redo {op.kind}: the tree changed since the undo ({e}); "
                         "nothing was redone") from e
    undo = {k: v for k, v in op.undo.items() if k != "redo"}
    operations.set_undo(conn, op.id, undo)
    operations.set_state(conn, op.id, "done")
    changed["redone"] = {"operation": op.id, "kind": op.kind}
    return Change("redo", target, op.id, f"redid {op.kind}: {op.summary}", changed)


def redo(store: Store, conv_id: int | None = None) -> Change:
    """Make the most recently undone action again (in ``conv_id``, or anywhere)."""
    return store.transact(_redo, conv_id)


def redo_kind(store: Store, conv_id: int | None) -> str | None:
    """What Redo would make again (the Edit menu's label), None when nothing."""
    op = operations.last_undone(store.reader, conv_id)
    return op.kind if op is not None else None
