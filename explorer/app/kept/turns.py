"""A big conversation's turn graph kept in the file between opens (``store.view_cache``).

Building it reads and groups every message: two seconds of a core for a 100,000-message
session, in a child process, at every open. What the child sends (the packed view,
model and cells) is kept under the conversation's revision, by the child itself once
it has sent it, so the next open of the unchanged conversation reads one row instead;
``convo import`` and ``convo sync`` derive it for the big conversations they bring in,
so even the first open finds it.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from explorer.app.graph.turn_build import packed_parts
from explorer.app.graph.turn_process import (
    CHILD_MIN_MESSAGES,
    Built,
    drop_early,
    packed_in_child,
    start_early,
    unpack_built,
)
from explorer.app.kept import pace as keep_pace
from explorer.app.kept.codec import code_key, decode, encode
from explorer.store import Store, read_only, view_cache
from explorer.store.connection import open_connection, transaction

KIND = "turn graph"
KEEP_WAIT_MS = 5000
"""How long the child's write waits for another writer before it keeps nothing (a second
was too short on a loaded two-core machine: the window's own writes held the file longer)."""

log = logging.getLogger(__name__)


def kept_or_built(store: Store, conv_id: int, expanded: Collection[int] = (),
                  cancelled: Callable[[], bool] = lambda: False) -> Built | None:
    """The kept graph when the conversation is unchanged since, else the child's build
    (kept for the next open); None as :func:`~explorer.app.graph.turn_process.build_in_child`.
    Only the graph as it opens (no run expanded) is kept, and only once in
    ``keep_pace.PACE_S`` while the conversation keeps changing."""
    at = None if expanded else store.revision(conv_id)
    if at is not None:
        kept = _kept(store, conv_id, at)
        if kept is not None:
            drop_early()  # started for nothing: the code changed since, say
            return kept
    keep_at = at if at is not None and keep_pace.take(store.db_path, conv_id, KIND) else None
    got = packed_in_child(store.db_path, conv_id, expanded, cancelled, keep_at=keep_at)
    return None if got is None else unpack_built(got)


def keep_in_file(db_path: str | Path, conv_id: int, at: int, packed: dict[str, Any]) -> bool:
    """The child's own write of what it built, derived at revision ``at``: the window then
    never holds a second, encoded copy of a graph that can be tens of megabytes (a bushy
    100,000-message tree's is 23 MB). One short transaction; a file busy for longer than
    ``KEEP_WAIT_MS``, or any failure, keeps nothing (the next open builds again). Whether it
    kept. Nothing is kept in a database this process may not write."""
    path = Path(db_path)
    if not (read_only.folder_writable(path) and read_only.writable(path)):
        return False
    data = encode(packed)
    try:
        conn = open_connection(db_path)
    except sqlite3.Error:
        return False
    try:
        conn.execute(f"PRAGMA busy_timeout={KEEP_WAIT_MS}")
        with transaction(conn):
            return view_cache.keep(conn, conv_id, KIND, at, code_key(), data)
    except sqlite3.Error as exc:
        log.info("the turn graph of conversation %s was not kept (%s)", conv_id, exc)
        return False
    finally:
        conn.close()


def start_early_if_cold(store: Store, conv_id: int, yield_cores: bool = True) -> bool:
    """Start the graph's child for ``conv_id`` now when its open will need one: a big
    conversation with no graph kept at its revision (under any code's key: no digest is
    made before the first frame). Whether one started."""
    at = store.revision(conv_id, CHILD_MIN_MESSAGES)
    if at is None or store.has_kept_view(conv_id, KIND, at, None):
        return False
    return start_early(store.db_path, conv_id, at, yield_cores)


def is_kept(store: Store, conv_id: int) -> bool:
    at = store.revision(conv_id)
    return at is not None and store.has_kept_view(conv_id, KIND, at, code_key())


def keep_now(store: Store, conv_id: int) -> None:
    """Build the graph in this process and keep it (after an import: no window waits)."""
    at = store.revision(conv_id)
    if at is None or store.has_kept_view(conv_id, KIND, at, code_key()):
        return
    store.keep_view(conv_id, KIND, at, code_key(), encode(packed_parts(store, conv_id)))


def _kept(store: Store, conv_id: int, at: int) -> Built | None:
    data = store.kept_view(conv_id, KIND, at, code_key())
    if data is None:
        return None
    try:
        return unpack_built(decode(data))
    except Exception as exc:
        log.warning("the kept turn graph of conversation %s is unreadable (%s: %s); "
                    "built again", conv_id, type(exc).__name__, exc)
        return None
