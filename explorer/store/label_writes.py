"""Checkpoints, rewinds and trims (C1–C4, P4): labels on boundaries, pointer moves back.

Nothing here deletes a message: rewind moves the tip, trim moves the context
start; only labels whose target was cut away are removed, and they are named.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from explorer.store import reads
from explorer.store.errors import StoreError
from explorer.store.tree_writes import set_tip
from explorer.tree.digest import exploration_digest
from explorer.tree.trim import TrimError, TrimPlan, plan_trim
from explorer.tree.turns import is_boundary, last_clean_boundary


def checkpoint(conn: sqlite3.Connection, conv_id: int, label: str, at: int | None = None) -> int:
    """Label message ``at`` (default: the tip); refused unless it is a clean boundary (C1)."""
    label = label.strip()
    if not label:
        raise StoreError("a checkpoint needs a label")
    conv = reads.get_conversation(conn, conv_id)
    target = conv.tip_id if at is None else at
    if target is None:
        raise StoreError(f"conversation {conv_id} is empty; there is nothing to label")
    if reads.message_conversation(conn, target) != conv_id:
        raise StoreError(f"message {target} is not in conversation {conv_id}")
    existing = reads.checkpoints(conn, conv_id)
    if label in existing:
        raise StoreError(f"checkpoint {label!r} already exists at message {existing[label]}")
    path = reads.path_messages(conn, target)
    if not is_boundary(path, len(path) - 1):
        raise StoreError(
            f"message {target} is inside a turn (a tool call waits for its result); "
            "a checkpoint can only be set on a turn boundary"
        )
    conn.execute(
        "INSERT INTO checkpoints(conversation_id, label, message_id, created_at) VALUES (?,?,?,?)",
        (conv_id, label, target, time.time()),
    )
    return target


def rewind(conn: sqlite3.Connection, conv_id: int, label: str) -> dict[str, Any]:
    """Move the tip back to ``label`` and keep a digest of what the exploration did (C3)."""
    conv = reads.get_conversation(conn, conv_id)
    labels = reads.checkpoints(conn, conv_id)
    if label not in labels:
        known = ", ".join(sorted(labels)) or "none"
        raise StoreError(f"no checkpoint {label!r} in conversation {conv_id} (known: {known})")
    target = labels[label]
    if conv.tip_id is None:
        raise StoreError(f"conversation {conv_id} has no tip")
    tip_path = reads.path_messages(conn, conv.tip_id)
    keep = set(reads.path_ids(conn, target))
    explored = [m for m in tip_path if m.id not in keep]
    digest = exploration_digest(explored)
    conn.execute(
        "INSERT INTO rewinds(conversation_id, from_tip_id, to_message_id, label, digest, "
        "created_at) VALUES (?,?,?,?,?,?)",
        (conv_id, conv.tip_id, target, label, json.dumps(digest, sort_keys=True), time.time()),
    )
    set_tip(conn, conv_id, target)
    return digest


def trim(
    conn: sqlite3.Connection, conv_id: int, *, keep_turns: int | None = None,
    keep_tokens: int | None = None,
) -> TrimPlan:
    """Start the active context at a recent turn boundary; drop labels that were cut (P4, C4)."""
    conv = reads.get_conversation(conn, conv_id)
    if conv.tip_id is None:
        raise StoreError(f"conversation {conv_id} is empty")
    path = reads.path_messages(conn, conv.tip_id)
    clean = last_clean_boundary(path)  # P3: a crashed session is trimmed from its last boundary
    path = path[: (clean if clean is not None else -1) + 1]
    labels = reads.checkpoints(conn, conv_id)
    try:
        plan = plan_trim(path, keep_turns=keep_turns, keep_tokens=keep_tokens, checkpoints=labels)
    except TrimError as e:
        raise StoreError(str(e)) from e
    conn.execute(
        "UPDATE conversations SET context_start_id = ?, updated_at = ? WHERE id = ?",
        (plan.start_id, time.time(), conv_id),
    )
    conn.executemany(
        "DELETE FROM checkpoints WHERE conversation_id = ? AND label = ?",
        [(conv_id, label) for label in plan.dropped_checkpoints],
    )
    return plan
