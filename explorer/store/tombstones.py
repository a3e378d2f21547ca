"""Deleted subtrees wait here, rows and all, until undo restores them or a purge drops them (T7).

Burying moves a subtree's messages and every row that points at them (parts,
labels, marks, compaction records: found through the schema's foreign keys, so a
table added later is carried too) out of the live tables into one tombstone.
Every existing read therefore sees the tree without it, and restoring inserts the
same rows back under the same message ids.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.store import part_sizing
from explorer.store.ids import MESSAGE_ID_FLOOR, raise_id_floor
from explorer.store.reads import NotFound

Rows = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Tombstone:
    id: int
    conversation_id: int
    root_id: int
    parent_id: int | None
    message_count: int
    preview: str
    created_at: float


def _dependents(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(table, column) pairs holding a foreign key to a message, other than a parent pointer."""
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%REFERENCES%'")]
    out = []
    for table in tables:
        for fk in conn.execute(f"PRAGMA foreign_key_list({_quote(table)})"):
            if fk[2] == "messages" and table != "messages":
                out.append((table, fk[3]))
    return out


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _select(conn: sqlite3.Connection, table: str, column: str, ids: str) -> list[dict[str, Any]]:
    cur = conn.execute(
        f"SELECT * FROM {_quote(table)} WHERE {_quote(column)} IN "
        "(SELECT value FROM json_each(?))", (ids,),
    )
    names = [d[0] for d in cur.description]
    return [{n: _encode(v) for n, v in zip(names, row, strict=True)} for row in cur]


def _encode(value: Any) -> Any:
    return {"$b64": base64.b64encode(value).decode()} if isinstance(value, bytes) else value


def _decode(value: Any) -> Any:
    return base64.b64decode(value["$b64"]) if isinstance(value, dict) else value


def lift(conn: sqlite3.Connection, ids: Sequence[int]) -> Rows:
    """Take the subtree ``ids`` (its root first) and every row pointing at it out of the live
    tables; returns the rows, which ``put_back`` inserts again unchanged."""
    key = json.dumps(list(ids))
    rows: Rows = {"messages": _select(conn, "messages", "id", key)}
    order = {mid: i for i, mid in enumerate(ids)}
    rows["messages"].sort(key=lambda r: order[r["id"]])
    dependents = _dependents(conn)
    for table, column in dependents:
        found = _select(conn, table, column, key)
        if found:
            rows.setdefault(table, []).extend(found)
    for table, column in dependents:
        conn.execute(f"DELETE FROM {_quote(table)} WHERE {_quote(column)} IN "
                     "(SELECT value FROM json_each(?))", (key,))
    conn.execute("DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))", (key,))
    raise_id_floor(conn, MESSAGE_ID_FLOOR, max(ids))
    return rows


def bury(
    conn: sqlite3.Connection, conv_id: int, ids: Sequence[int], tombstone_id: int | None = None,
    created_at: float | None = None,
) -> int:
    """Move the subtree ``ids`` (its root first) into a new tombstone; returns its id.

    ``tombstone_id`` and ``created_at`` bury it again as it was (a redone deletion)."""
    rows = lift(conn, ids)
    root = rows["messages"][0]
    cur = conn.execute(
        "INSERT INTO tombstones(id, conversation_id, root_id, parent_id, message_count, "
        "preview, rows, created_at) VALUES (?,?,?,?,?,?,?,?)",
        (tombstone_id, conv_id, root["id"], root["parent_id"], len(ids),
         root.get("preview") or "", _dumps_rows(rows),
         time.time() if created_at is None else created_at),
    )
    return int(cur.lastrowid or 0)


def _dumps_rows(rows: Rows) -> str:
    """``json.dumps(rows)``, a row at a time: one call over a 10,000-message branch held the
    interpreter for 90 ms, and the window's thread waited that long for its next frame."""
    tables = (f"{json.dumps(table)}: [{', '.join(_row_texts(found))}]"
              for table, found in rows.items())
    return "{" + ", ".join(tables) + "}"


def _row_texts(found: list[dict[str, Any]]) -> Iterator[str]:
    for row in found:
        yield json.dumps(row, ensure_ascii=False)


def restore(conn: sqlite3.Connection, tombstone_id: int) -> list[int]:
    """Put a tombstone's rows back, message ids unchanged; returns the restored ids."""
    row = conn.execute("SELECT rows FROM tombstones WHERE id = ?", (tombstone_id,)).fetchone()
    if row is None:
        raise NotFound(f"no deleted branch {tombstone_id} (it was restored or purged)")
    restored = put_back(conn, json.loads(row[0]))
    conn.execute("DELETE FROM tombstones WHERE id = ?", (tombstone_id,))
    return restored


def put_back(conn: sqlite3.Connection, rows: Rows) -> list[int]:
    """Insert rows ``lift`` took, message ids unchanged; returns the message ids."""
    rows = dict(rows)
    messages = rows.pop("messages")
    _insert(conn, "messages", messages, keep_id=True)
    for table, found in rows.items():
        _insert(conn, table, found, keep_id=False)
    restored = [r["id"] for r in messages]
    if "parts" in rows:
        while part_sizing.fill(conn, message_ids=restored):  # buried before parts had sizes
            pass
        conn.execute(
            "INSERT INTO parts_fts(rowid, text) SELECT id, text FROM parts WHERE message_id IN "
            "(SELECT value FROM json_each(?))", (json.dumps(restored),),
        )
    return restored


def _insert(
    conn: sqlite3.Connection, table: str, found: list[dict[str, Any]], keep_id: bool
) -> None:
    """Insert rows as they were; a row id taken meanwhile is left to SQLite (never a message)."""
    live = {r[1] for r in conn.execute(f"PRAGMA table_info({_quote(table)})")}
    for r in found:
        values = {k: _decode(v) for k, v in r.items() if k in live}
        if not keep_id and "id" in values and conn.execute(
            f"SELECT 1 FROM {_quote(table)} WHERE id = ?", (values["id"],)
        ).fetchone():
            values.pop("id")
        cols = ", ".join(_quote(k) for k in values)
        marks = ", ".join("?" for _ in values)
        conn.execute(f"INSERT INTO {_quote(table)}({cols}) VALUES ({marks})",
                     list(values.values()))


def tombstones(conn: sqlite3.Connection, conv_id: int) -> list[Tombstone]:
    return [Tombstone(*r) for r in conn.execute(
        "SELECT id, conversation_id, root_id, parent_id, message_count, coalesce(preview, ''), "
        "created_at FROM tombstones WHERE conversation_id = ? ORDER BY id", (conv_id,),
    )]


def purge(
    conn: sqlite3.Connection, conv_id: int | None = None, before: float | None = None
) -> list[Tombstone]:
    """Drop tombstones for good (one conversation's, or all; only those buried before
    ``before``, a time, when given); returns what was dropped."""
    terms: list[str] = []
    params: list[float] = []
    if conv_id is not None:
        terms.append("conversation_id = ?")
        params.append(conv_id)
    if before is not None:
        terms.append("created_at < ?")
        params.append(before)
    where = ("WHERE " + " AND ".join(terms)) if terms else ""
    args = tuple(params)
    gone = [Tombstone(*r) for r in conn.execute(
        "SELECT id, conversation_id, root_id, parent_id, message_count, coalesce(preview, ''), "
        f"created_at FROM tombstones {where} ORDER BY id", args,
    )]
    hashes = {h for (h,) in conn.execute(
        "SELECT DISTINCT json_extract(p.value, '$.blob_hash') FROM tombstones t, "
        f"json_each(t.rows, '$.parts') p {where.replace('conversation_id', 't.conversation_id')}",
        args,
    ) if h}
    conn.execute(f"DELETE FROM tombstones {where}", args)
    _drop_unused_blobs(conn, hashes)
    return gone


def _drop_unused_blobs(conn: sqlite3.Connection, hashes: set[str]) -> None:
    """Image bytes only the purged parts used (blobs are shared by content hash)."""
    for h in sorted(hashes):
        used = conn.execute("SELECT 1 FROM parts WHERE blob_hash = ? LIMIT 1", (h,)).fetchone()
        kept = conn.execute(
            "SELECT 1 FROM tombstones t, json_each(t.rows, '$.parts') p "
            "WHERE json_extract(p.value, '$.blob_hash') = ? LIMIT 1", (h,),
        ).fetchone()
        if not used and not kept:
            try:
                conn.execute("DELETE FROM blobs WHERE hash = ?", (h,))
            except sqlite3.IntegrityError:  # another table still points at these bytes
                continue
