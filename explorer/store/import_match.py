"""Which stored conversation an import continues (T5), and the keys its messages answer to.

The same format and source id, a conversation renamed since (its old ids), this program's
own export (``ce:<uid>``), or a session that copies another (an agent's fork): each is
found here, and checked to hold the same messages before an import merges into it.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from typing import Any

from explorer.store.rows import preview
from explorer.tree.imported import ImportedConversation
from explorer.tree.model import Message


def identity(ic: ImportedConversation) -> str:
    """The source id, or a digest of the message keys when the source has none."""
    if ic.source_id:
        return ic.source_id
    keys = "\n".join(str(m.source_id or m.id) for m in ic.messages)
    return "sha1:" + hashlib.sha1(f"{ic.title}\n{keys}".encode()).hexdigest()


_OWN_EXPORT = re.compile(r"^ce:([0-9a-f]{32})$")
JOINED = "_joined_copy"  # set on an import's meta while it is stored: it joined a conversation


def continued(
    conn: sqlite3.Connection, fmt: str, sid: str, msgs: list[Message], ic: ImportedConversation
) -> tuple[int | None, dict[str, int], bool]:
    """The conversation this import continues, its messages by source key, and whether
    another conversation holds the source id with different content.

    The same format and source id match when the content agrees (it is the same
    conversation: messages in common say the same); two exports that reuse an id
    for different conversations stay apart. An export (``ce:<uid>``) of a
    conversation made here, whatever its format, is found by its uid. A message
    without a source id answers to ``ce:<uid>:<id>``, the key its export gave it.
    """
    found = conn.execute(
        "SELECT id, json_extract(meta, '$.uid') FROM conversations "
        "WHERE source_format = ? AND source_id = ? ORDER BY id", (fmt, sid),
    ).fetchall()
    for alias in ic.source_aliases if not found else ():  # the id an earlier import used
        found = _renamed(conn, fmt, alias, sid)
        if found:
            break
    own = _OWN_EXPORT.match(sid)
    if not found and own:
        found = conn.execute(
            "SELECT id, json_extract(meta, '$.uid') FROM conversations "
            "WHERE json_extract(meta, '$.uid') = ? ORDER BY id LIMIT 1", (own.group(1),),
        ).fetchall()
    copied = not found and not own and bool(found := _copy_of(conn, fmt, sid, msgs))
    for conv_id, uid in found:
        rows = conn.execute(
            "SELECT id, source_id, role, coalesce(preview, '') FROM messages "
            "WHERE conversation_id = ?", (conv_id,),
        ).fetchall()
        if own or _same_conversation(rows, uid, msgs, ic):
            if copied:
                ic.meta[JOINED] = (f"a copy of this conversation's session (the agent forked "
                                   f"it, as session {sid}): what the copy adds is a branch here")
            return conv_id, {(s or f"ce:{uid}:{i}"): i for i, s, _, _ in rows}, False
    return None, {}, bool(found) and not copied


def _copy_of(conn: sqlite3.Connection, fmt: str, sid: str,
             msgs: list[Message]) -> list[Any]:
    """The conversation whose session this one copies: another session of the format that
    starts with the same message (Claude Code's ``--fork-session`` copies the records it
    forks with their ids under a new session id). One lookup in the index of roots."""
    root = next((m for m in msgs if m.parent_id is None), None)
    if root is None or root.source_id is None:
        return []
    return conn.execute(
        "SELECT c.id, json_extract(c.meta, '$.uid') FROM messages m "
        "JOIN conversations c ON c.id = m.conversation_id "
        "WHERE m.parent_id IS NULL AND m.source_id = ? AND c.source_format = ? "
        "AND c.source_id IS NOT ? ORDER BY c.id LIMIT 1", (str(root.source_id), fmt, sid),
    ).fetchall()


def _renamed(conn: sqlite3.Connection, fmt: str, alias: str, sid: str) -> list[Any]:
    """Conversations imported under ``alias``, given the source id ``sid`` from now on."""
    found = conn.execute(
        "SELECT id, json_extract(meta, '$.uid') FROM conversations "
        "WHERE source_format = ? AND source_id = ? ORDER BY id", (fmt, alias),
    ).fetchall()
    if found:
        conn.execute("UPDATE conversations SET source_id = ? WHERE source_format = ? "
                     "AND source_id = ?", (sid, fmt, alias))
    return found


def message_keys(conn: sqlite3.Connection, conv_id: int) -> dict[str, int]:
    """A conversation's messages by source key (``ce:<uid>:<id>`` for those without one)."""
    (uid,) = conn.execute("SELECT json_extract(meta, '$.uid') FROM conversations WHERE id = ?",
                          (conv_id,)).fetchone()
    rows = conn.execute("SELECT id, source_id FROM messages WHERE conversation_id = ?",
                        (conv_id,)).fetchall()
    return {(s or f"ce:{uid}:{i}"): i for i, s in rows}


def _same_conversation(rows: list[tuple[Any, ...]], uid: str, msgs: list[Message],
                       ic: ImportedConversation) -> bool:
    """Messages in common agree (role and opening words) at least half the time; with
    none in common, only an empty side makes it the same conversation. (A lazily read
    conversation's messages are compared with their content, a chunk at a time.)"""
    if not rows or not msgs:
        return True
    stored = {(s or f"ce:{uid}:{i}"): (role, text) for i, s, role, text in rows}
    common = [m for m in msgs if source_key(m) in stored]
    if not common:
        return False
    agree = 0
    for chunk in ic.chunks(common):
        agree += sum(stored[source_key(m)] == (m.role, preview(m)) for m in chunk)
    return agree * 2 >= len(common)


def source_key(m: Message) -> str:
    """The key a stored message answers to: its source id, else its own."""
    return str(m.source_id if m.source_id is not None else m.id)
