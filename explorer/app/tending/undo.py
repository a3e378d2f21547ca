"""Undo the last tree action, and purge deleted branches for good (T7, T8).

An operation's undo record lists the inverse steps; they run in one transaction
together with marking the operation undone, so an undo either happens whole or
not at all. The undo also records what the change was, so ``explorer.app.tending.redo``
can make it again exactly. Purge is the one action that cannot be undone, and it
says so; it also drops what undone operations kept for a redo.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from explorer.app.preferences import load_app_prefs
from explorer.app.tending.tree_actions import Change
from explorer.store import Store, StoreError, operations, tombstones, tree_writes
from explorer.store.marks import mark_row, put_row
from explorer.store.reads import NotFound


def _remove_created(conn: sqlite3.Connection, created: list[int]) -> tombstones.Rows | None:
    """Messages the operation wrote go again, unless something continued them since; returns
    their rows (what a redo puts back), None when none is left."""
    present = [mid for mid in created if conn.execute(
        "SELECT 1 FROM messages WHERE id = ?", (mid,)).fetchone()]
    if not present:
        return None
    key = json.dumps(present)
    later = conn.execute(
        "SELECT id, parent_id FROM messages WHERE parent_id IN (SELECT value FROM json_each(?)) "
        "AND id NOT IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT 1", (key, key),
    ).fetchone()
    if later:
        raise StoreError(
            f"message {later[1]} was continued since (by message {later[0]}); delete that "
            "branch instead — nothing was undone"
        )
    order = {mid: i for i, mid in enumerate(created)}
    return tombstones.lift(conn, sorted(present, key=order.__getitem__))


def _row(conn: sqlite3.Connection, table: str, where: str, args: tuple[Any, ...]
         ) -> dict[str, Any] | None:
    cur = conn.execute(f"SELECT * FROM {table} WHERE {where}", args)
    row = cur.fetchone()
    return dict(zip([d[0] for d in cur.description], row, strict=True)) if row else None


def _apply(conn: sqlite3.Connection, conv_id: int, undo: dict[str, Any]
           ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run the inverse steps of one operation; returns what changed back, and the redo record
    (what it takes to make the same change again, ids and all)."""
    changed: dict[str, Any] = {}
    redo: dict[str, Any] = {}
    if "tombstone" in undo:
        when = conn.execute("SELECT created_at FROM tombstones WHERE id = ?",
                            (undo["tombstone"],)).fetchone()
        try:
            changed["restored"] = tombstones.restore(conn, int(undo["tombstone"]))
        except NotFound as e:
            raise StoreError(str(e.args[0])) from e
        redo["bury"] = {"ids": changed["restored"], "tombstone": undo["tombstone"],
                        "created_at": when[0]}
    if "created" in undo:
        rows = _remove_created(conn, list(undo["created"]))
        if rows is not None:
            redo["rows"] = rows
        changed["removed"] = list(undo["created"])
    if "rewind" in undo:
        redo["rewind"] = _row(conn, "rewinds", "id = ?", (undo["rewind"],))
        conn.execute("DELETE FROM rewinds WHERE id = ?", (undo["rewind"],))
    if "checkpoint" in undo:
        redo["checkpoint"] = _row(conn, "checkpoints", "conversation_id = ? AND label = ?",
                                  (conv_id, undo["checkpoint"]))
        conn.execute("DELETE FROM checkpoints WHERE conversation_id = ? AND label = ?",
                     (conv_id, undo["checkpoint"]))
        changed["checkpoint_removed"] = undo["checkpoint"]
    if undo.get("marks"):
        redo["marks"] = [mark_row(conn, int(r["message_id"])) or
                         {"message_id": int(r["message_id"]), "conversation_id": conv_id}
                         for r in undo["marks"]]
    for row in undo.get("marks", []):
        put_row(conn, int(row["message_id"]), row)
    if undo.get("marks"):
        changed["marks"] = [int(r["message_id"]) for r in undo["marks"]]
    if "tip" in undo:
        before = conn.execute("SELECT tip_id FROM conversations WHERE id = ?",
                              (conv_id,)).fetchone()[0]
        if undo["tip"] is None:
            conn.execute("UPDATE conversations SET tip_id = NULL WHERE id = ?", (conv_id,))
        else:
            tree_writes.branch(conn, conv_id, int(undo["tip"]))
        changed["tip"] = {"from": before, "to": undo["tip"]}
        redo["tip"] = before
    return changed, redo


def _undo(conn: sqlite3.Connection, conv_id: int | None) -> Change:
    op = operations.last_done(conn, conv_id)
    if op is None:
        where = f" in conversation {conv_id}" if conv_id is not None else ""
        raise StoreError(f"nothing to undo{where}")
    return _undo_op(conn, op)


def _undo_op(conn: sqlite3.Connection, op: operations.Operation) -> Change:
    target = op.conversation_id if op.conversation_id is not None else -1
    changed, redo = _apply(conn, target, op.undo)
    operations.set_state(conn, op.id, "undone")
    operations.set_undo(conn, op.id, {**op.undo, "redo": redo})
    changed["undone"] = {"operation": op.id, "kind": op.kind}
    return Change("undo", target, op.id, f"undid {op.kind}: {op.summary}", changed)


def undo(store: Store, conv_id: int | None = None) -> Change:
    """Undo the newest tree action (in ``conv_id``, or anywhere)."""
    return store.transact(_undo, conv_id)


def _restore(conn: sqlite3.Connection, tombstone_id: int) -> Change:
    op = next((o for o in operations.deletions(conn, tombstone_id) if o.state == "done"), None)
    if op is None:
        raise StoreError(f"deleted branch {tombstone_id} is not waiting for an undo (purged?)")
    return _undo_op(conn, op)


def restore_deleted(store: Store, tombstone_id: int) -> Change:
    """Undo one deletion out of turn (a click on its "✕ deleted · undo" marker): restoring a
    tombstone depends on no later action, so it needs none of them undone first."""
    return store.transact(_restore, tombstone_id)


def _purge(conn: sqlite3.Connection, conv_id: int | None, before: float | None
           ) -> dict[str, Any]:
    gone = tombstones.purge(conn, conv_id, before)
    operations.retire_purged(conn, [t.id for t in gone])
    # What undone operations kept for a redo is deleted data too: it goes with the rest.
    operations.drop_redo(conn, conv_id, before)
    return {"purged": [{"tombstone": t.id, "conversation": t.conversation_id, "root": t.root_id,
                        "messages": t.message_count} for t in gone],
            "messages": sum(t.message_count for t in gone)}


def purge(
    store: Store, conv_id: int | None = None, older_than_days: float | None = None
) -> dict[str, Any]:
    """Drop deleted branches for good (cannot be undone); returns what was dropped.

    With ``older_than_days`` only branches deleted at least that long ago go (the
    ``purge_deleted_after_days`` setting applies this when the app opens a file).
    """
    before = time.time() - older_than_days * 86_400 if older_than_days is not None else None
    return store.transact(_purge, conv_id, before)


def purge_expired(store: Store) -> dict[str, Any] | None:
    """Apply the ``purge_deleted_after_days`` setting; None when it is not set."""
    days = load_app_prefs().purge_after_days
    return purge(store, older_than_days=days) if days is not None else None
