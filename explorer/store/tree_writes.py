"""Writes that grow or move the tree: append a turn, branch, edit a prompt, fork (T1–T4, P2).

Every function runs inside one transaction opened by the caller's writer, so
a crash leaves the file at the previous turn boundary.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Sequence

from explorer.store import reads
from explorer.store.errors import StoreError
from explorer.store.ids import next_ids
from explorer.store.rows import db_id, dumps, insert_rows, message_row, part_rows
from explorer.tree.model import Message, Part
from explorer.tree.turns import boundary_flags


def create_conversation(
    conn: sqlite3.Connection, title: str, *, source_format: str | None = None,
    source_id: str | None = None, source_path: str | None = None,
    created_at: float | None = None, meta: dict[str, object] | None = None,
    forked_from: tuple[int, int] | None = None,
) -> int:
    now = time.time()
    meta = {"uid": uuid.uuid4().hex, **(meta or {})}
    cur = conn.execute(
        "INSERT INTO conversations(title, source_format, source_id, source_path, created_at, "
        "updated_at, meta, forked_from_conversation_id, forked_from_message_id) "
        "VALUES (?,?,?,?,?,?,?,?,?)",
        (title, source_format, source_id, source_path, created_at or now, now, dumps(meta),
         *(forked_from or (None, None))),
    )
    return int(cur.lastrowid or 0)


def _pending_tool_calls(conn: sqlite3.Connection, tip: int | None) -> list[str]:
    """Tool calls on the path to ``tip`` still waiting for a result (P1)."""
    if tip is None:
        return []
    rows = conn.execute(
        "WITH RECURSIVE up(id, parent_id) AS (SELECT id, parent_id FROM messages WHERE id = ?"
        " UNION ALL SELECT m.id, m.parent_id FROM messages m JOIN up ON m.id = up.parent_id) "
        "SELECT p.kind, p.tool_use_id FROM up JOIN parts p ON p.message_id = up.id "
        "WHERE p.kind IN ('tool_use', 'tool_result') AND p.tool_use_id IS NOT NULL",
        (tip,),
    ).fetchall()
    calls = {tid for kind, tid in rows if kind == "tool_use"}
    results = {tid for kind, tid in rows if kind == "tool_result"}
    return sorted(calls - results)


def append_turn(
    conn: sqlite3.Connection, conv_id: int, messages: Sequence[Message], *,
    parent_id: int | None = None, incomplete: bool = False, move_tip: bool = True,
    as_root: bool = False,
) -> list[int]:
    """Write ``messages`` as a chain under ``parent_id`` (default: the tip); move the tip.

    ``as_root`` starts a new root instead (an edited first prompt and its answer).

    Refuses a turn that leaves a tool call unanswered unless it is an import
    marked ``incomplete`` (P2: only whole turns are persisted).
    """
    if not messages:
        raise StoreError("a turn needs at least one message")
    conv = reads.get_conversation(conn, conv_id)
    parent = None if as_root else (conv.tip_id if parent_id is None else parent_id)
    if parent is not None and reads.message_conversation(conn, parent) != conv_id:
        raise StoreError(f"message {parent} is not in conversation {conv_id}")
    pending = set(_pending_tool_calls(conn, parent))
    chain = _as_chain(pending, messages)
    if not boundary_flags(chain)[-1] and not incomplete:
        raise StoreError(
            "the turn ends with an unanswered tool call; a turn is written only when complete"
        )
    ids = list(next_ids(conn, "messages", len(messages)))
    blobs: dict[str, tuple[bytes, str | None]] = {}
    mrows, prows = [], []
    prev = parent
    for mid, m in zip(ids, messages, strict=True):
        mrows.append(message_row(m, mid, conv_id, prev))
        prows.extend(part_rows(m.parts, mid, blobs))
        prev = mid
    insert_rows(conn, mrows, prows, blobs)
    if move_tip:
        set_tip(conn, conv_id, ids[-1])
    return ids


def _as_chain(pending: set[str], messages: Sequence[Message]) -> list[Message]:
    """The new messages, preceded by a stand-in for calls already waiting."""
    lead = [Message(id="pending", parent_id=None, role="assistant", parts=[
        Part("tool_use", tool_use_id=t) for t in sorted(pending)
    ])] if pending else []
    return lead + list(messages)


def set_tip(conn: sqlite3.Connection, conv_id: int, mid: int) -> None:
    conn.execute(
        "UPDATE conversations SET tip_id = ?, updated_at = ? WHERE id = ?",
        (mid, time.time(), conv_id),
    )


def branch(conn: sqlite3.Connection, conv_id: int, mid: int) -> None:
    """Move the tip to ``mid`` (T2): the only row written is the conversation's."""
    if reads.message_conversation(conn, mid) != conv_id:
        raise StoreError(f"message {mid} is not in conversation {conv_id}")
    conn.execute("UPDATE conversations SET tip_id = ? WHERE id = ?", (mid, conv_id))


def edit_prompt(
    conn: sqlite3.Connection, conv_id: int, mid: int, text: str, created_at: float | None = None
) -> int:
    """A sibling of prompt ``mid`` with new text; the tip moves to it, the old answer stays."""
    original = reads.path_messages(conn, mid)[-1]
    if reads.message_conversation(conn, mid) != conv_id:
        raise StoreError(f"message {mid} is not in conversation {conv_id}")
    if not original.is_prompt:
        raise StoreError(f"message {mid} is a {original.role} message, not a prompt to edit")
    if not text.strip():
        raise StoreError("the edited prompt is empty")
    parts = [Part("text", text)] + [p for p in original.parts if p.kind == "image"]
    edited = Message(id=None, parent_id=None, role="user", parts=parts,
                     created_at=created_at if created_at is not None else time.time(),
                     source_meta={"edited_from": mid})
    parent = original.parent_id
    if parent is None:
        return append_turn(conn, conv_id, [edited], as_root=True)[0]
    return append_turn(conn, conv_id, [edited], parent_id=db_id(parent))[0]


# Where a session belongs: a fork keeps them, so its export files it under the same project.
PLACE_KEYS = ("cwd", "git_branch", "git", "version", "agent", "originator", "model_provider")


def fork(conn: sqlite3.Connection, conv_id: int, mid: int, title: str | None = None) -> int:
    """Copy the root-to-``mid`` path into a new conversation with fresh ids (T4)."""
    if reads.message_conversation(conn, mid) != conv_id:
        raise StoreError(f"message {mid} is not in conversation {conv_id}")
    conv = reads.get_conversation(conn, conv_id)
    path = reads.path_messages(conn, mid)
    place = {k: conv.meta[k] for k in PLACE_KEYS if k in conv.meta}
    new_conv = create_conversation(
        conn, title or f"Fork of {conv.title}", source_format=conv.source_format,
        forked_from=(conv_id, mid), meta={"forked_from_title": conv.title, **place},
    )
    ids = list(next_ids(conn, "messages", len(path)))
    remap = {db_id(m.id): new for m, new in zip(path, ids, strict=True)}
    start = remap.get(conv.context_start_id) if conv.context_start_id else None
    blobs: dict[str, tuple[bytes, str | None]] = {}
    mrows, prows = [], []
    for m, new in zip(path, ids, strict=True):
        parent = remap[db_id(m.parent_id)] if m.parent_id is not None else None
        meta = {**m.source_meta, "forked_from_message": m.id}
        mrows.append(message_row(_with_meta(m, meta), new, new_conv, parent))
        prows.extend(part_rows(m.parts, new, blobs))
    insert_rows(conn, mrows, prows, blobs)
    for label, target in reads.checkpoints(conn, conv_id).items():
        if target in remap:
            conn.execute(
                "INSERT INTO checkpoints(conversation_id, label, message_id, created_at) "
                "VALUES (?,?,?,?)", (new_conv, label, remap[target], time.time()),
            )
    conn.execute(
        "UPDATE conversations SET tip_id = ?, context_start_id = ? WHERE id = ?",
        (ids[-1], start, new_conv),
    )
    return new_conv


def _with_meta(m: Message, meta: dict[str, object]) -> Message:
    return Message(id=m.id, parent_id=m.parent_id, role=m.role, parts=m.parts,
                   created_at=m.created_at, model=m.model, usage=m.usage,
                   source_id=m.source_id, source_meta=meta)
