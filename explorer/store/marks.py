"""Marks a person puts on messages: archived subtree roots, preferred children, names, notes.

One row per marked message; a row whose marks are all empty is removed, so "no
mark" has one representation and an undo can compare rows exactly.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from explorer.store.meta_keys import MARKED, MARKED_ROWS

FIELDS = ("archived_at", "preferred", "label", "note")


@dataclass(frozen=True)
class Marks:
    """Every mark of one conversation, keyed by message id."""

    archived: dict[int, float]
    preferred: set[int]
    labels: dict[int, str]
    notes: dict[int, str]


def conversation_marks(conn: sqlite3.Connection, conv_id: int) -> Marks:
    archived: dict[int, float] = {}
    preferred: set[int] = set()
    labels: dict[int, str] = {}
    notes: dict[int, str] = {}
    for mid, arch, pref, label, note in conn.execute(
        "SELECT message_id, archived_at, preferred, label, note FROM message_marks "
        "WHERE conversation_id = ? ORDER BY message_id", (conv_id,),
    ):
        if arch is not None:
            archived[mid] = float(arch)
        if pref:
            preferred.add(mid)
        if label:
            labels[mid] = label
        if note:
            notes[mid] = note
    return Marks(archived, preferred, labels, notes)


def mark_row(conn: sqlite3.Connection, mid: int) -> dict[str, Any] | None:
    """The stored row of ``mid`` (None when it has no mark), for undo records."""
    row = conn.execute(
        "SELECT conversation_id, archived_at, preferred, label, note FROM message_marks "
        "WHERE message_id = ?", (mid,),
    ).fetchone()
    if row is None:
        return None
    return {"message_id": mid, "conversation_id": row[0],
            **dict(zip(FIELDS, row[1:], strict=True))}


def set_marks(conn: sqlite3.Connection, conv_id: int, mid: int, **values: Any) -> None:
    """Change some marks of ``mid`` (None clears one); an empty row is removed."""
    unknown = set(values) - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown marks {sorted(unknown)}")
    current = mark_row(conn, mid) or {"message_id": mid, "conversation_id": conv_id}
    current.update(values)
    put_row(conn, mid, current if any(current.get(f) for f in FIELDS) else None)


def put_row(conn: sqlite3.Connection, mid: int, row: dict[str, Any] | None) -> None:
    """Store exactly ``row`` for ``mid`` (None: no marks), as ``mark_row`` returned it."""
    conn.execute("DELETE FROM message_marks WHERE message_id = ?", (mid,))
    if row is None or not any(row.get(f) for f in FIELDS):
        return
    conn.execute(
        "INSERT INTO message_marks(message_id, conversation_id, archived_at, preferred, label, "
        "note) VALUES (?,?,?,?,?,?)",
        (mid, row["conversation_id"], row.get("archived_at"), row.get("preferred") or None,
         row.get("label"), row.get("note")),
    )


def merge_links(conn: sqlite3.Connection, conv_id: int) -> list[tuple[int, int]]:
    """(side branch tip, merge message) for each merge message of the conversation."""
    return [(int(r[0]), int(r[1])) for r in conn.execute(
        "SELECT json_extract(source_meta, '$.merged_from.tip'), id FROM "
        f"{MARKED_ROWS} WHERE conversation_id = ? AND {MARKED} "
        "AND json_extract(source_meta, '$.merged_from.tip') IS NOT NULL ORDER BY id",
        (conv_id,),
    )]


def edits(conn: sqlite3.Connection, conv_id: int) -> dict[int, int]:
    """Edited prompt → the prompt it was edited from (siblings, T2)."""
    return {int(r[0]): int(r[1]) for r in conn.execute(
        "SELECT id, json_extract(source_meta, '$.edited_from') FROM "
        f"{MARKED_ROWS} WHERE conversation_id = ? AND {MARKED} "
        "AND json_extract(source_meta, '$.edited_from') IS NOT NULL", (conv_id,),
    )}


def replays(conn: sqlite3.Connection, conv_id: int) -> list[tuple[int, int]]:
    """(old branch tip, edited prompt) of every replay not undone."""
    return [(int(r[0]), int(r[1])) for r in conn.execute(
        "SELECT json_extract(undo, '$.replay.from_tip'), json_extract(undo, '$.replay.onto') "
        "FROM operations WHERE conversation_id = ? AND kind = 'replay' AND state = 'done'",
        (conv_id,),
    )]


def merges_and_edits(conn: sqlite3.Connection, conv_id: int
                     ) -> tuple[list[tuple[int, int]], dict[int, int]]:
    """``merge_links`` and ``edits`` in one read (the tended view asks for both whenever
    it is made), of the messages the metadata index holds (store.meta_keys)."""
    merges: list[tuple[int, int]] = []
    edited: dict[int, int] = {}
    for mid, tip, source in conn.execute(
        "SELECT id, json_extract(source_meta, '$.merged_from.tip'), "
        "json_extract(source_meta, '$.edited_from') FROM "
        f"{MARKED_ROWS} WHERE conversation_id = ? AND {MARKED} ORDER BY id", (conv_id,),
    ):
        if tip is not None:  # the index holds messages for other keys too: the JSON decides
            merges.append((int(tip), int(mid)))
        if source is not None:
            edited[int(mid)] = int(source)
    return merges, edited
