"""Tree actions as undoable operations, the same ones for the window and the command line (T8).

Each action runs in one writer transaction that makes the change and records, in the
operation log, exactly what it takes to undo it (``explorer.app.tending.undo`` reads that back).
Nothing here writes a message except ``edit``; archive and delete never touch the
active path (T6, T7).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from explorer.store import Store, StoreError, label_writes, operations, reads, tree_writes
from explorer.store.marks import conversation_marks, mark_row, set_marks
from explorer.store.tombstones import bury
from explorer.tree.model import Message
from explorer.tree.tending import (
    TendingError,
    check_checkpoints,
    check_off_path,
    children_of,
    preferred_choices,
    subtree,
)


@dataclass(frozen=True)
class Change:
    """What one action did: printed for people, and as ``--json`` for programs."""

    kind: str
    conversation_id: int
    operation_id: int | None
    summary: str
    changed: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --- helpers on the writer's connection --------------------------------------------------------


def conversation_of(conn: sqlite3.Connection, mid: int) -> int:
    return reads.message_conversation(conn, mid)


def tip_of(conn: sqlite3.Connection, conv_id: int) -> int | None:
    return reads.get_conversation(conn, conv_id).tip_id


def active_ids(conn: sqlite3.Connection, conv_id: int) -> set[int]:
    tip = tip_of(conn, conv_id)
    return set(reads.path_ids(conn, tip)) if tip is not None else set()


def children_in(conn: sqlite3.Connection, conv_id: int) -> dict[int | None, list[int]]:
    parents = dict(conn.execute(
        "SELECT id, parent_id FROM messages WHERE conversation_id = ?", (conv_id,)).fetchall())
    return children_of(parents)


def _done(
    conn: sqlite3.Connection, conv_id: int, kind: str, summary: str, undo: dict[str, Any],
    changed: dict[str, Any],
) -> Change:
    op = operations.record(conn, conv_id, kind, summary, undo)
    return Change(kind, conv_id, op, summary, changed)


def _refused(e: TendingError) -> StoreError:
    return StoreError(str(e))


# --- pointer moves, edits and labels ----------------------------------------------------------


def _unfold(conn: sqlite3.Connection, conv_id: int, tip: int | None) -> list[dict[str, Any]]:
    """Unarchive the archived roots the path to ``tip`` runs through: the active path is
    never folded away (T6). Returns their mark rows as they were, for the undo record."""
    if tip is None:
        return []
    archived = conversation_marks(conn, conv_id).archived
    roots = [m for m in reads.path_ids(conn, tip) if m in archived]
    before = [mark_row(conn, m) or {"message_id": m, "conversation_id": conv_id}
              for m in roots]
    for m in roots:
        set_marks(conn, conv_id, m, archived_at=None)
    return before


def archived_rows(conn: sqlite3.Connection, conv_id: int) -> dict[int, dict[str, Any]]:
    """The mark rows of the conversation's archived roots, as they are now: taken before a
    run that logs its turns as one operation at the end (replay, fan-out), so that
    operation's undo can fold again what the run's turns unfolded."""
    return {m: mark_row(conn, m) or {"message_id": m, "conversation_id": conv_id}
            for m in conversation_marks(conn, conv_id).archived}


def unfolded_since(
    conn: sqlite3.Connection, conv_id: int, before: dict[int, dict[str, Any]],
    created: Sequence[int],
) -> list[dict[str, Any]]:
    """The rows, as ``before`` had them, of archived roots that the path to a message in
    ``created`` ran through and that are archived no longer (T6: the turns unfolded them)."""
    if not before or not created:
        return []
    now = conversation_marks(conn, conv_id).archived
    gone = [m for m in before if m not in now]
    if not gone:
        return []
    on_path: set[int] = set()
    for mid in created:
        if mid not in on_path:
            on_path.update(reads.path_ids(conn, mid))
    return [before[m] for m in gone if m in on_path]


def _branch(conn: sqlite3.Connection, conv_id: int, mid: int) -> Change:
    before = tip_of(conn, conv_id)
    tree_writes.branch(conn, conv_id, mid)
    unfolded = _unfold(conn, conv_id, mid)
    undo: dict[str, Any] = {"tip": before, **({"marks": unfolded} if unfolded else {})}
    changed: dict[str, Any] = {"tip": {"from": before, "to": mid}}
    if unfolded:
        changed["unarchived"] = [int(r["message_id"]) for r in unfolded]
    return _done(conn, conv_id, "branch", f"tip moved from {before} to {mid}", undo, changed)


def branch(store: Store, conv_id: int, mid: int) -> Change:
    """Make ``mid`` the tip (T2); undo moves it back."""
    return store.transact(_branch, conv_id, mid)


def _edit(conn: sqlite3.Connection, conv_id: int, mid: int, text: str) -> Change:
    before = tip_of(conn, conv_id)
    new = tree_writes.edit_prompt(conn, conv_id, mid, text)
    unfolded = _unfold(conn, conv_id, new)
    return _done(conn, conv_id, "edit", f"prompt {mid} edited into sibling {new}",
                 {"tip": before, "created": [new], **({"marks": unfolded} if unfolded else {})},
                 {"created": [new], "tip": {"from": before, "to": new}})


def edit(store: Store, conv_id: int, mid: int, text: str) -> Change:
    """An edited sibling of prompt ``mid``, made the tip; undo removes it again."""
    return store.transact(_edit, conv_id, mid, text)


def record_created(
    store: Store, conv_id: int, kind: str, created: list[int], tip_before: int | None,
    summary: str,
) -> Change:
    """Log messages another use-case wrote (an answer, a merge) as one undoable operation."""
    def run(conn: sqlite3.Connection) -> Change:
        return _done(conn, conv_id, kind, summary, {"tip": tip_before, "created": created},
                     {"created": created, "tip": {"from": tip_before,
                                                  "to": tip_of(conn, conv_id)}})
    return store.transact(run)


def _write_turn(
    conn: sqlite3.Connection, conv_id: int, kind: str, messages: Sequence[Message],
    parent_id: int | None, as_root: bool, log: bool,
) -> list[int]:
    before = tip_of(conn, conv_id)
    ids = tree_writes.append_turn(conn, conv_id, messages, parent_id=parent_id, as_root=as_root)
    unfolded = _unfold(conn, conv_id, ids[-1])  # an answer inside an archived branch
    if log:
        what = f"message {ids[0]}" if len(ids) == 1 else f"messages {ids[0]}–{ids[-1]}"
        operations.record(conn, conv_id, kind, f"{what} written by {kind}",
                          {"tip": before, "created": ids,
                           **({"marks": unfolded} if unfolded else {})})
    return ids


def write_turn(
    store: Store, conv_id: int, kind: str, messages: Sequence[Message], *,
    parent_id: int | None = None, as_root: bool = False, log: bool = True,
) -> list[int]:
    """A model call's turn and, with ``log``, its undo record, in one transaction (T8): undo
    removes what the call wrote and puts the tip back. Replay and fan-out log their steps as
    one operation of their own, so they pass ``log=False``."""
    return store.transact(_write_turn, conv_id, kind, messages, parent_id, as_root, log)


def _checkpoint(conn: sqlite3.Connection, conv_id: int, label: str, at: int | None) -> Change:
    target = label_writes.checkpoint(conn, conv_id, label, at)
    return _done(conn, conv_id, "checkpoint", f"checkpoint {label.strip()!r} at {target}",
                 {"checkpoint": label.strip()}, {"checkpoint": label.strip(), "message": target})


def checkpoint(store: Store, conv_id: int, label: str, at: int | None = None) -> Change:
    """Label a turn boundary (C1); undo removes the label."""
    return store.transact(_checkpoint, conv_id, label, at)


def _rewind(conn: sqlite3.Connection, conv_id: int, label: str) -> Change:
    before = tip_of(conn, conv_id)
    digest = label_writes.rewind(conn, conv_id, label)
    rewind_id = conn.execute("SELECT max(id) FROM rewinds WHERE conversation_id = ?",
                             (conv_id,)).fetchone()[0]
    after = tip_of(conn, conv_id)
    unfolded = _unfold(conn, conv_id, after)
    return _done(conn, conv_id, "rewind", f"rewound to {label!r} (tip {before} → {after})",
                 {"tip": before, "rewind": rewind_id,
                  **({"marks": unfolded} if unfolded else {})},
                 {"tip": {"from": before, "to": after}, "digest": digest})


def rewind(store: Store, conv_id: int, label: str) -> Change:
    """Tip back to a checkpoint with a digest (C3); undo returns and forgets the digest."""
    return store.transact(_rewind, conv_id, label)


# --- archive, delete -------------------------------------------------------------------------


def _archive(conn: sqlite3.Connection, mid: int, on: bool) -> Change:
    conv_id = conversation_of(conn, mid)
    before = mark_row(conn, mid)
    archived = bool(before and before.get("archived_at") is not None)
    if on:
        try:
            check_off_path(mid, active_ids(conn, conv_id), "archiving")
        except TendingError as e:
            raise _refused(e) from e
        if archived:
            raise StoreError(f"the branch at message {mid} is already archived")
    elif not archived:
        raise StoreError(f"message {mid} is not the root of an archived branch")
    set_marks(conn, conv_id, mid, archived_at=time.time() if on else None)
    hidden = len(subtree(children_in(conn, conv_id), mid))
    kind = "archive" if on else "unarchive"
    verb = "archived" if on else "unfolded"
    return _done(conn, conv_id, kind, f"branch at {mid} {verb} ({hidden} message(s))",
                 {"marks": [before or {"message_id": mid, "conversation_id": conv_id}]},
                 {kind + "d": [mid], "messages": hidden})


def archive(store: Store, mid: int) -> Change:
    """Fold the subtree at ``mid`` (off the active path) into a marker (T6)."""
    return store.transact(_archive, mid, True)


def unarchive(store: Store, mid: int) -> Change:
    return store.transact(_archive, mid, False)


def _unarchive_at(conn: sqlite3.Connection, conv_id: int, points: Sequence[int | None]
                  ) -> Change:
    archived = conversation_marks(conn, conv_id).archived
    parents = dict(conn.execute(
        "SELECT id, parent_id FROM messages WHERE conversation_id = ? AND id IN "
        "(SELECT value FROM json_each(?))", (conv_id, str(sorted(archived))))).items()
    roots = sorted(m for m, p in parents if p in set(points))
    if not roots:
        raise StoreError("no archived branch is folded there")
    before = [mark_row(conn, m) or {"message_id": m, "conversation_id": conv_id} for m in roots]
    for m in roots:
        set_marks(conn, conv_id, m, archived_at=None)
    children = children_in(conn, conv_id)
    hidden = sum(len(subtree(children, m)) for m in roots)
    where = ", ".join("the roots" if p is None else str(p) for p in points)
    return _done(conn, conv_id, "unarchive",
                 f"{len(roots)} branch(es) at {where} unfolded ({hidden} message(s))",
                 {"marks": before}, {"unarchived": roots, "messages": hidden})


def unarchive_at(store: Store, conv_id: int, points: Sequence[int | None]) -> Change:
    """Unfold every archived branch folded at the branch points ``points`` (a click on the
    graph's "▸ N archived" chip): one undoable operation."""
    return store.transact(_unarchive_at, conv_id, list(points))


def _delete(conn: sqlite3.Connection, mid: int, with_checkpoints: bool) -> Change:
    conv_id = conversation_of(conn, mid)
    try:
        check_off_path(mid, active_ids(conn, conv_id), "deleting")
        ids = subtree(children_in(conn, conv_id), mid)
        labels = check_checkpoints(set(ids), reads.checkpoints(conn, conv_id), with_checkpoints)
    except TendingError as e:
        raise _refused(e) from e
    tombstone = bury(conn, conv_id, ids)
    summary = f"branch at {mid} deleted ({len(ids)} message(s))"
    if labels:
        summary += f", with checkpoint(s) {', '.join(labels)}"
    return _done(conn, conv_id, "delete", summary, {"tombstone": tombstone},
                 {"deleted": ids, "tombstone": tombstone, "checkpoints": labels})


def delete(store: Store, mid: int, *, with_checkpoints: bool = False) -> Change:
    """Tombstone the subtree at ``mid`` (never the active path, T7); undo restores it."""
    return store.transact(_delete, mid, with_checkpoints)


# --- star, label, note ---------------------------------------------------------------------


def _star(conn: sqlite3.Connection, mid: int) -> Change:
    conv_id = conversation_of(conn, mid)
    children = children_in(conn, conv_id)
    choices = preferred_choices(reads.path_ids(conn, mid), children)
    if not choices:
        raise StoreError(f"there is no branch point on the way to message {mid}: "
                         "nothing to prefer")
    touched = [kid for parent in choices for kid in children[parent]]
    before = [mark_row(conn, k) or {"message_id": k, "conversation_id": conv_id}
              for k in touched]
    for parent, chosen in choices.items():
        for kid in children[parent]:
            set_marks(conn, conv_id, kid, preferred=1 if kid == chosen else None)
    preferred = sorted(choices.values())
    return _done(conn, conv_id, "star",
                 f"path to {mid} preferred at {len(choices)} branch point(s)",
                 {"marks": before}, {"preferred": preferred})


def star(store: Store, mid: int) -> Change:
    """Prefer the path to ``mid`` at every branch point on the way (◀ ▶ and exports open it)."""
    return store.transact(_star, mid)


def _annotate(conn: sqlite3.Connection, mid: int, field_name: str, text: str) -> Change:
    conv_id = conversation_of(conn, mid)
    before = mark_row(conn, mid) or {"message_id": mid, "conversation_id": conv_id}
    value = " ".join(text.split()) if field_name == "label" else text.strip()
    set_marks(conn, conv_id, mid, **{field_name: value or None})
    what = f"{field_name} of {mid} " + (f"set to {value!r}" if value else "cleared")
    return _done(conn, conv_id, field_name, what, {"marks": [before]},
                 {field_name: {"message": mid, "text": value or None}})


def label(store: Store, mid: int, name: str) -> Change:
    """Name the branch that starts (or runs through) ``mid``; an empty name clears it."""
    return store.transact(_annotate, mid, "label", name)


def note(store: Store, mid: int, text: str) -> Change:
    """A note shown on the node and in the transcript; empty text clears it."""
    return store.transact(_annotate, mid, "note", text)
