"""Read queries: conversations, paths (recursive CTE), children, labels, search."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field, replace
from typing import Any

from explorer.store.boundary import Remember, clean_boundary
from explorer.store.rows import load_messages, loads
from explorer.store.search_plan import SearchHit as SearchHit
from explorer.store.search_plan import SearchPage as SearchPage  # what search_page returns
from explorer.store.search_plan import search_page
from explorer.tree.errors import ExplorerError
from explorer.tree.model import Message
from explorer.tree.secrets import masked


class NotFound(ExplorerError, LookupError):
    """A conversation, message or label that does not exist."""


@dataclass(frozen=True)
class Conversation:
    id: int
    title: str
    tip_id: int | None
    context_start_id: int | None
    forked_from_conversation_id: int | None
    forked_from_message_id: int | None
    source_format: str | None
    source_id: str | None
    source_path: str | None
    created_at: float | None
    updated_at: float | None
    clean_tip_id: int | None  # derived by get_conversation (boundary.py); None in lists
    meta: dict[str, Any] = field(default_factory=dict)
    message_count: int = 0

    @property
    def display_title(self) -> str:
        """The title as it is shown: a secret in it masked (R1); ``title`` stays exact for
        the native export."""
        return masked(self.title) if self.title else "Untitled"


@dataclass(frozen=True)
class SkeletonNode:
    """What the graph needs of a message: no full text."""

    id: int
    parent_id: int | None
    role: str
    preview: str


_CONV_COLS = (
    "c.id, c.title, c.tip_id, c.context_start_id, c.forked_from_conversation_id, "
    "c.forked_from_message_id, c.source_format, c.source_id, c.source_path, c.created_at, "
    "c.updated_at, c.clean_tip_id, c.meta"
)


def _conversation(r: sqlite3.Row | tuple[Any, ...], count: int = 0) -> Conversation:
    (cid, title, tip, start, from_conv, from_msg, fmt, sid, spath, created, updated,
     clean) = r[:12]
    return Conversation(cid, title, tip, start, from_conv, from_msg, fmt, sid, spath, created,
                        updated, clean, meta=loads(r[12]), message_count=count)


def get_conversation(conn: sqlite3.Connection, conv_id: int, boundary: bool = True,
                     remember: Remember | None = None) -> Conversation:
    """One conversation; ``boundary=False`` leaves ``clean_tip_id`` unset instead of
    deriving it (a walk of the whole active path, a second on 100,000 messages, when the
    file does not keep it yet); ``remember`` keeps a derived one (boundary.py)."""
    r = conn.execute(
        f"SELECT {_CONV_COLS}, c.message_count FROM conversations c WHERE c.id = ?",
        (conv_id,),
    ).fetchone()
    if r is None:
        raise NotFound(f"no conversation {conv_id}")
    conv = _conversation(r, r[13])
    if not boundary:
        return replace(conv, clean_tip_id=None)
    uid = conv.meta.get("uid")
    clean = clean_boundary(conn, conv.tip_id, uid if isinstance(uid, str) else "", conv_id,
                           remember)
    return replace(conv, clean_tip_id=clean)


def list_conversations(conn: sqlite3.Connection) -> list[Conversation]:
    """All conversations, newest first, with their message counts (kept by triggers)."""
    rows = conn.execute(
        f"SELECT {_CONV_COLS}, c.message_count FROM conversations c "
        "ORDER BY coalesce(c.updated_at, c.created_at, 0) DESC, c.id DESC"
    ).fetchall()
    return [replace(_conversation(r, r[13]), clean_tip_id=None) for r in rows]


def message_conversation(conn: sqlite3.Connection, mid: int) -> int:
    r = conn.execute("SELECT conversation_id FROM messages WHERE id = ?", (mid,)).fetchone()
    if r is None:
        raise NotFound(f"no message {mid}")
    return int(r[0])


def path_ids(conn: sqlite3.Connection, tip: int) -> list[int]:
    """Ids from the root to ``tip`` through one recursive query (T1)."""
    rows = conn.execute(
        "WITH RECURSIVE up(id, parent_id, depth) AS ("
        " SELECT id, parent_id, 0 FROM messages WHERE id = ?"
        " UNION ALL SELECT m.id, m.parent_id, up.depth + 1 FROM messages m"
        " JOIN up ON m.id = up.parent_id) "
        "SELECT id FROM up ORDER BY depth DESC",
        (tip,),
    ).fetchall()
    if not rows:
        raise NotFound(f"no message {tip}")
    return [r[0] for r in rows]


def path_messages(conn: sqlite3.Connection, tip: int) -> list[Message]:
    ids = path_ids(conn, tip)
    loaded = load_messages(conn, ids)
    return [loaded[i] for i in ids]


def children(conn: sqlite3.Connection, mid: int) -> list[int]:
    return [r[0] for r in conn.execute(
        "SELECT id FROM messages WHERE parent_id = ? ORDER BY id", (mid,)
    )]


def siblings(conn: sqlite3.Connection, mid: int) -> list[int]:
    """Messages sharing ``mid``'s parent (roots of the same conversation for a root)."""
    r = conn.execute(
        "SELECT parent_id, conversation_id FROM messages WHERE id = ?", (mid,)
    ).fetchone()
    if r is None:
        raise NotFound(f"no message {mid}")
    if r[0] is None:  # a subagent's root has no siblings and is none of the roots' (V1)
        q = ("SELECT id, json_type(source_meta, '$.spawned_by_tool_use_id') IS NOT NULL "
             "FROM messages WHERE parent_id IS NULL AND conversation_id = ? ORDER BY id")
        rows = [(x[0], bool(x[1])) for x in conn.execute(q, (r[1],))]
        if any(rid == mid and sub for rid, sub in rows):
            return [mid]
        return [rid for rid, sub in rows if not sub]
    return children(conn, r[0])


def skeleton(conn: sqlite3.Connection, conv_id: int) -> list[SkeletonNode]:
    return [SkeletonNode(*r) for r in conn.execute(
        "SELECT id, parent_id, role, coalesce(preview, '') FROM messages "
        "WHERE conversation_id = ? ORDER BY id",
        (conv_id,),
    )]


def parents(conn: sqlite3.Connection, conv_id: int) -> dict[int, int | None]:
    """Every message's parent, and nothing else: the tree's shape for a conversation of
    any length without a row object or a preview per message."""
    return dict(conn.execute(
        "SELECT id, parent_id FROM messages WHERE conversation_id = ? ORDER BY id", (conv_id,)))


def ids_with_role(conn: sqlite3.Connection, conv_id: int, role: str) -> list[int]:
    return [r[0] for r in conn.execute(
        "SELECT id FROM messages WHERE conversation_id = ? AND role = ? ORDER BY id",
        (conv_id, role))]


def checkpoints(conn: sqlite3.Connection, conv_id: int) -> dict[str, int]:
    return {r[0]: r[1] for r in conn.execute(
        "SELECT label, message_id FROM checkpoints WHERE conversation_id = ? ORDER BY id",
        (conv_id,),
    )}


def rewinds(conn: sqlite3.Connection, conv_id: int) -> list[dict[str, Any]]:
    return [
        {"id": r[0], "from_tip_id": r[1], "to_message_id": r[2], "label": r[3],
         "digest": loads(r[4]), "created_at": r[5]}
        for r in conn.execute(
            "SELECT id, from_tip_id, to_message_id, label, digest, created_at FROM rewinds "
            "WHERE conversation_id = ? ORDER BY id",
            (conv_id,),
        )
    ]


def compactions(conn: sqlite3.Connection, conv_id: int) -> list[dict[str, Any]]:
    return [
        {"id": r[0], "message_id": r[1], "kind": r[2], "origin": r[3], "params": loads(r[4]),
         "outputs": loads(r[5]), "summary": r[6] or "", "created_at": r[7]}
        for r in conn.execute(
            "SELECT id, message_id, kind, origin, params, outputs, summary, created_at "
            "FROM compactions WHERE conversation_id = ? ORDER BY id",
            (conv_id,),
        )
    ]


def search(conn: sqlite3.Connection, query: str, limit: int = 50,
           offset: int = 0) -> list[SearchHit]:
    """Full-text search over every part with the filters of
    :mod:`explorer.store.search_query`, one hit per message; user text is never FTS syntax.
    Ranked by relevance, or newest sessions first when too many parts match to rank in time
    (:mod:`explorer.store.search_plan` says when and why). Filters alone list the newest
    messages they allow."""
    return search_page(conn, query, limit, offset).hits


def fork_points(conn: sqlite3.Connection, conv_id: int) -> list[tuple[int, int]]:
    """(fork, message it was forked at) for each conversation forked from ``conv_id``: what the
    tree's marks need of the other conversations, without counting every one's messages."""
    return [(int(c), int(m)) for c, m in conn.execute(
        "SELECT id, forked_from_message_id FROM conversations "
        "WHERE forked_from_conversation_id = ? AND forked_from_message_id IS NOT NULL "
        "ORDER BY id", (conv_id,))]
