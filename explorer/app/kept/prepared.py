"""The views of big conversations derived once, right after they are imported or synced.

``convo import`` of a 100,000-message session takes a minute; deriving its turn graph,
context figure and path skeleton then adds a few seconds, and spares the first open of
it the same seconds (later opens of the unchanged conversation find them kept anyway:
:mod:`explorer.app.kept.turns`, :mod:`explorer.app.kept.figure`,
:mod:`explorer.app.kept.paths`). A small conversation opens in milliseconds and is left
alone.
"""

from __future__ import annotations

import contextlib
from array import array
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from explorer.app.graph import view_children
from explorer.app.graph.turn_process import CHILD_MIN_MESSAGES
from explorer.app.importing.plan import input_sizes
from explorer.app.kept import paths as kept_paths
from explorer.app.kept import turns as kept_turns
from explorer.compaction.target import Target
from explorer.store import Store


def prepare_big(store: Store, conv_ids: Iterable[int], target: Target | None = None,
                *, turns_beside: bool = False) -> list[int]:
    """Keep the turn graph, the context figure (for ``target``, else the settings' one, as
    the window costs it) and the active path's skeleton of each conversation of
    ``conv_ids`` big enough to have its graph built in a child process; the ones
    prepared, once they are in the file. ``turns_beside``: the turn graph is built and
    kept by the graph's child process while this one costs the figure and the path (a
    command line's import: two cores, 0.8 s sooner on 100,000 messages)."""
    big = [c for c in (store.conversation(cid, boundary=False) for cid in dict.fromkeys(conv_ids))
           if c.message_count >= CHILD_MIN_MESSAGES]
    if not big:
        return []
    from explorer.app.context.figure import ContextFigure  # numpy: only for a big one
    from explorer.app.targets import build_target

    use = target or build_target()
    for conv in big:
        beside = _turns_beside(store, conv.id) if turns_beside else None
        if beside is None:
            kept_turns.keep_now(store, conv.id)
        ContextFigure(store).usage(conv.id, use)
        if conv.tip_id is not None:
            kept_paths.path_columns(store, conv.id, conv.tip_id, keep=True)
        if beside is not None:
            beside.result()
            # Kept by the child, unless it failed or the conversation moved on meanwhile
            # (its clean boundary found while its figure was costed): then built here.
            kept_turns.keep_now(store, conv.id)
    store.writes_done()
    return [conv.id for conv in big]


SPARE_BYTES = 8 << 20
"""Files this big together may hold a conversation whose views are prepared after their
import: the turn graph's child is started while they are read (:func:`child_ready`)."""


@contextlib.contextmanager
def child_ready(paths: Iterable[Path], *, prepares: bool = False) -> Iterator[None]:
    """Within the block, a big import's view child waits ready: started while the files
    are read, on the core the reading leaves idle; ended at the end if nothing asked for
    it. For :func:`prepare_big` (``turns_beside``) it builds the turn graph; ``prepares``:
    it prepares all the views (``turn_process.prepare_in_child``, a window's import), with
    its own turn graph's child started already."""
    if not _reach(paths, SPARE_BYTES):
        yield
        return
    view_children.start_spare(ready_turns=prepares)
    try:
        yield
    finally:
        view_children.drop_spare()


def handed_paths(store: Store, conv_ids: Iterable[int]) -> list[array[int]]:
    """The paths to the tips and clean boundaries of ``conv_ids`` that their import handed
    to ``store``: a child preparing their views (``turn_process.prepare_in_child``) is
    given them instead of walking them again."""
    convs = [store.conversation(c) for c in conv_ids]
    tips = {t for c in convs for t in (c.tip_id, c.clean_tip_id) if t is not None}
    return [ids for t in sorted(tips) if (ids := store.known_path(t)) is not None]


def _reach(paths: Iterable[Path], limit: int) -> bool:
    """Whether the files an import of ``paths`` reads hold ``limit`` bytes together: a
    folder's walk stops as soon as they do (the import's own walk of it comes next)."""
    total = 0
    for size in (n for p in paths for n in input_sizes(p)):
        total += size
        if total >= limit:
            return True
    return False


def _turns_beside(store: Store, conv_id: int) -> Future[Any] | None:
    """The turn graph built and kept by the graph's child process, waited for on a thread
    of its own; None when there is nothing to build."""
    at = store.revision(conv_id)
    if at is None or kept_turns.is_kept(store, conv_id):
        return None
    from explorer.app.graph.turn_process import kept_in_child

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="turns-beside")
    try:
        return pool.submit(kept_in_child, store.db_path, conv_id, at)
    finally:
        pool.shutdown(wait=False)
