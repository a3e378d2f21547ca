"""Reads for showing a long path without loading it: the skeleton first, content by window.

A transcript of 80,000 messages must open at once (V2), so the first read
gives each message on the path only what a placeholder row needs (id, role,
a short preview, the kinds and sizes of its parts); full content is read
later, for a few dozen messages at a time. Part text longer than a limit is
read only up to that limit, with its real length: a 10 MB paste costs the
window 6 kB until the person unfolds it.
"""

from __future__ import annotations

import json
import sqlite3
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from explorer.store.fetching import in_chunks
from explorer.store.reads import path_ids
from explorer.store.rows import loads
from explorer.tree.columns import TextColumn
from explorer.tree.model import Message, Part, Usage

FOLD_CHARS = 6_000
PATH_CHUNK = 4096  # rows taken into the skeleton's columns at a time
"""Part text beyond this many characters is left in the file until it is asked for: a
longer part is shown folded to its first screenful (laying out 20,000 characters of rich
text took the window's main thread 40–60 ms)."""

FOLDED_KEY = "folded_chars"
"""Meta key set on a part read in part: its full length in characters."""


@dataclass(frozen=True, slots=True)
class PathEntry:
    """One message on a path, without its content."""

    id: int
    parent_id: int | None
    role: str
    preview: str
    kinds: tuple[str, ...]
    chars: int  # text characters over all parts, each part counted up to FOLD_CHARS


class PathColumns:
    """A path's skeleton in columns: a few machine words per message, not an object each.

    An 80,000-message path held as :class:`PathEntry` objects costs tens of megabytes
    of Python objects; here ids, parents and sizes are integer arrays, roles one byte,
    and each message's part kinds an index into the distinct tuples of kinds (a few
    hundred on a real session). ``columns[i]`` builds the entry of message ``i`` when a
    row needs it (a few dozen at a time, for the rows on screen).
    """

    __slots__ = ("chars", "ids", "kind_at", "kind_sets", "parents", "previews", "role_names",
                 "roles")

    def __init__(self) -> None:
        self.ids = array("q")
        self.parents = array("q")  # -1: a root
        self.roles = bytearray()  # index into role_names
        self.role_names: list[str] = []
        self.previews: Sequence[str] = []  # one UTF-8 buffer once read (a TextColumn)
        self.kind_sets: list[tuple[str, ...]] = [()]  # the distinct tuples of part kinds
        self.kind_at = array("I")  # index into kind_sets
        self.chars = array("q")

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> PathEntry:
        parent = self.parents[i]
        return PathEntry(self.ids[i], None if parent < 0 else parent,
                         self.role_names[self.roles[i]], self.previews[i],
                         self.kind_sets[self.kind_at[i]], self.chars[i])

    def __iter__(self) -> Iterator[PathEntry]:
        return (self[i] for i in range(len(self)))


def path_columns(conn: sqlite3.Connection, tip: int) -> PathColumns:
    """The path from the root to ``tip`` in columns, in order (no part text is read)."""
    return columns_of(conn, path_ids(conn, tip))


def tip_ids(conn: sqlite3.Connection, tip: int, count: int) -> list[int]:
    """The last ``count`` ids of the path to ``tip``, root side first (all of them when the
    path is shorter): a walk up the parents by primary key that stops after ``count``
    steps, so the tip's screenful costs the same on a path of any length."""
    return [r[0] for r in conn.execute(
        "WITH RECURSIVE up(id, parent_id, depth) AS ("
        " SELECT id, parent_id, 0 FROM messages WHERE id = ?"
        " UNION ALL SELECT m.id, m.parent_id, up.depth + 1 FROM messages m"
        " JOIN up ON m.id = up.parent_id WHERE up.depth + 1 < ?) "
        "SELECT id FROM up ORDER BY depth DESC", (tip, count),
    )]


def columns_of(conn: sqlite3.Connection, path: Sequence[int]) -> PathColumns:
    """The skeleton columns of the messages ``path``, in that order.

    Rows are taken a chunk at a time into the columns, so no moment holds a Python
    object per message: on a real 127,000-message session the rows read at once (a
    tuple, two ints and a preview each) were 40 MB on top of the columns they became.
    """
    key = json.dumps(list(path))
    out = PathColumns()
    role_index: dict[str, int] = {}
    previews = TextColumn()
    for rows in in_chunks(conn.execute(
        "SELECT m.id, coalesce(m.parent_id, -1), m.role, coalesce(m.preview, '') "
        "FROM json_each(?) j JOIN messages m ON m.id = j.value ORDER BY j.key", (key,),
    ), PATH_CHUNK):
        ids, parents, roles, texts = zip(*rows, strict=True)
        out.ids.extend(ids)
        out.parents.extend(parents)
        out.roles.extend(role_index.setdefault(r, len(role_index)) for r in roles)
        previews.extend(texts)
    out.role_names = list(role_index)
    out.previews = previews.freeze()  # 80,000 strings would pin small pages
    n = len(out.ids)
    index: dict[tuple[str, ...], int] = {(): 0}
    out.kind_at = array("I", bytes(4 * n))
    out.chars = array("q", bytes(8 * n))
    at = -1
    kinds: list[str] = []
    for row, kind, size in conn.execute(
        "SELECT j.key, p.kind, min(coalesce(p.size_chars, length(p.text), 0), ?) "
        "FROM json_each(?) j "
        "JOIN parts p ON p.message_id = j.value ORDER BY j.key, p.idx", (FOLD_CHARS, key),
    ):
        if row != at:  # one message's kinds at a time, then its tuple's place
            if kinds:
                out.kind_at[at] = index.setdefault(tuple(kinds), len(index))
            at, kinds = row, []
        kinds.append(kind)
        out.chars[row] += size
    if kinds:
        out.kind_at[at] = index.setdefault(tuple(kinds), len(index))
    out.kind_sets = list(index)
    return out


def path_entries(conn: sqlite3.Connection, tip: int) -> list[PathEntry]:
    """The path from the root to ``tip`` as entries, in order (no part text is returned)."""
    return list(path_columns(conn, tip))


def window_messages(
    conn: sqlite3.Connection, ids: Sequence[int], fold: int = FOLD_CHARS
) -> dict[int, Message]:
    """Messages for ``ids`` with their parts; text over ``fold`` characters is cut there.

    A cut part carries its full length in ``meta[FOLDED_KEY]``; :func:`part_text` reads
    the rest when the person asks for it.
    """
    key = json.dumps(list(ids))
    out: dict[int, Message] = {}
    for r in conn.execute(
        "SELECT id, parent_id, role, created_at, model, usage, source_id, source_meta "
        "FROM messages WHERE id IN (SELECT value FROM json_each(?))", (key,),
    ):
        out[r[0]] = Message(
            id=r[0], parent_id=r[1], role=r[2], created_at=r[3], model=r[4],
            usage=Usage.from_dict(loads(r[5])), source_id=r[6], source_meta=loads(r[7]),
        )
    for r in conn.execute(
        "SELECT p.message_id, p.kind, substr(p.text, 1, ?), "
        "coalesce(p.size_chars, length(p.text)), p.tool_name, "
        "p.tool_use_id, p.is_error, b.data, p.media_type, p.meta, p.idx "
        "FROM parts p LEFT JOIN blobs b ON b.hash = p.blob_hash "
        "WHERE p.message_id IN (SELECT value FROM json_each(?)) ORDER BY p.message_id, p.idx",
        (fold, key),
    ):
        meta = loads(r[9])
        if r[3] is not None and r[3] > fold:
            meta = {**meta, FOLDED_KEY: int(r[3])}
        text = r[2] or ""
        if r[3] is not None and len(text) < min(fold, r[3]):  # SQL's substr stops at a NUL
            text = part_text(conn, r[0], r[10])[:fold]
        out[r[0]].parts.append(Part(
            kind=r[1], text=text, tool_name=r[4], tool_use_id=r[5], is_error=bool(r[6]),
            data=r[7], media_type=r[8], meta=meta,
        ))
    return out


def text_head(conn: sqlite3.Connection, mid: int, chars: int) -> str:
    """The start of message ``mid``'s text parts, each cut to ``chars``, joined by spaces:
    enough to tell siblings apart without reading a 10 MB paste whole."""
    rows = conn.execute(
        "SELECT substr(text, 1, ?) FROM parts WHERE message_id = ? AND text IS NOT NULL "
        "AND text != '' ORDER BY idx", (chars, mid),
    ).fetchall()
    return " ".join(str(r[0]) for r in rows)


def part_text(conn: sqlite3.Connection, mid: int, index: int) -> str:
    """The whole text of part ``index`` of message ``mid`` (what a folded part holds back)."""
    r = conn.execute(
        "SELECT text FROM parts WHERE message_id = ? AND idx = ?", (mid, index)
    ).fetchone()
    return str(r[0] or "") if r is not None else ""


_SUBAGENT_ROOT = "json_type({}.source_meta, '$.spawned_by_tool_use_id')"


def sibling_lists(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, list[int]]:
    """For each id, the messages sharing its parent (itself included), in id order.

    A subagent transcript's root is neither a sibling of the conversation's roots
    nor has any (V1): ◀ ▶ never lead into a subagent.
    """
    key = json.dumps(list(ids))
    out: dict[int, list[int]] = {}
    for mid, sib in conn.execute(
        "SELECT m.id, s.id FROM messages m JOIN messages s ON "
        "(s.parent_id = m.parent_id OR s.id = m.id OR (m.parent_id IS NULL "
        " AND s.parent_id IS NULL AND s.conversation_id = m.conversation_id "
        f" AND {_SUBAGENT_ROOT.format('s')} IS NULL AND {_SUBAGENT_ROOT.format('m')} IS NULL)) "
        "WHERE m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id, s.id", (key,),
    ):
        out.setdefault(mid, []).append(sib)
    return out


def tool_names_in(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[str, str]:
    """Tool names by call id for the calls made in messages ``ids`` (a result's parent)."""
    return {r[0]: r[1] or "tool" for r in conn.execute(
        "SELECT tool_use_id, tool_name FROM parts WHERE kind = 'tool_use' AND "
        "tool_use_id IS NOT NULL AND message_id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(ids)),))}
