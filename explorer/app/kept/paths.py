"""The skeleton of a big conversation's active path kept in the file between opens
(``store.view_cache``).

The transcript reads each message of the path (its role, preview, and its parts' kinds and
sizes) to lay out its rows: a second of a core for a 100,000-message session, at every
open. ``convo import`` and ``convo sync`` keep the columns of each big conversation's
active path under its revision and tip, so the window's first open of the unchanged
conversation reads them in one row. The window keeps a path it had to read only once its
open has settled (``ui.transcript.path_keeper``): for a real session the kept columns are
8 MB even with the previews compressed, and making and writing them while the window
opened raised its peak memory by 20–30 MB (past 200 MB on a 100,000-message session).
"""

from __future__ import annotations

import logging
import zlib
from array import array
from dataclasses import dataclass
from typing import Any

from explorer.app.kept.codec import code_key, decode, encode
from explorer.store import Store
from explorer.store.reads_path import PathColumns, columns_of
from explorer.tree.columns import TextColumn

KIND = "path columns"
KEPT_FROM = 5000
"""Paths of at least this many messages are kept: a shorter one reads in milliseconds."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Unkept:
    """A long path read at revision ``at`` and not found kept: what keeping it needs."""

    conv_id: int
    at: int
    key: str


def path_columns(store: Store, conv_id: int, tip: int, keep: bool = False) -> PathColumns:
    """The path to ``tip`` in columns: the kept ones when the conversation is unchanged
    since, else read (and kept, with ``keep``, when long enough)."""
    columns, unkept = read(store, conv_id, tip)
    if keep and unkept is not None:
        keep_read(store, unkept, columns)
    return columns


def read(store: Store, conv_id: int, tip: int) -> tuple[PathColumns, Unkept | None]:
    """The path to ``tip`` in columns, and when they were read (not kept) and are long
    enough to keep, what :func:`keep_read` needs to keep them later."""
    at = store.revision(conv_id, KEPT_FROM)  # a small one reads faster than a key is made
    if at is None:
        return columns_of(store.reader, store.path_ids(tip)), None
    key = f"{code_key()}:{tip}"
    data = store.kept_view(conv_id, KIND, at, key)
    if data is not None:
        try:
            return unpack(decode(data)), None
        except Exception as exc:  # a broken entry of any kind is only a miss
            log.warning("the kept path of conversation %s is unreadable (%s: %s); "
                        "read again", conv_id, type(exc).__name__, exc)
    columns = columns_of(store.reader, store.path_ids(tip))
    return columns, (Unkept(conv_id, at, key) if len(columns) >= KEPT_FROM else None)


def keep_read(store: Store, unkept: Unkept, columns: PathColumns) -> None:
    """Keep ``columns`` as read at ``unkept.at`` (the writer refuses them if the
    conversation has changed since)."""
    store.keep_view(unkept.conv_id, KIND, unkept.at, unkept.key, encode(pack(columns)))


def pack(columns: PathColumns) -> dict[str, Any]:
    """The columns as bytes and a few small lists (the kinds once per distinct tuple); the
    previews, most of it, compressed (to a third)."""
    previews = columns.previews
    buf, ends = previews.raw() if isinstance(previews, TextColumn) else TextColumn(
        previews).raw()
    return {"ids": columns.ids.tobytes(), "parents": columns.parents.tobytes(),
            "roles": bytes(columns.roles), "role_names": list(columns.role_names),
            "previews": (zlib.compress(buf, 1), ends.tobytes()), "kinds": list(columns.kind_sets),
            "kind_at": columns.kind_at.tobytes(), "chars": columns.chars.tobytes()}


def unpack(packed: dict[str, Any]) -> PathColumns:
    out = PathColumns()
    out.ids, out.parents, out.chars = (_array("q", packed[k]) for k in ("ids", "parents",
                                                                        "chars"))
    out.roles = bytearray(packed["roles"])
    out.role_names = [str(r) for r in packed["role_names"]]
    buf, ends = packed["previews"]
    out.previews = TextColumn.from_raw(zlib.decompress(buf), _array("I", ends))
    out.kind_sets = [tuple(str(k) for k in one) for one in packed["kinds"]]
    out.kind_at = _array("I", packed["kind_at"])
    n = len(out.ids)
    if not (len(out.parents) == len(out.chars) == len(out.roles) == len(out.kind_at)
            == len(out.previews) == n) or max(out.roles, default=0) >= max(
                len(out.role_names), 1) or max(out.kind_at, default=0) >= len(out.kind_sets):
        raise ValueError("the kept path's columns differ in length")
    return out


def _array(code: str, raw: bytes) -> array[Any]:
    out = array(code)
    out.frombytes(raw)
    return out
