"""What the transcript reads off the main thread: a path's skeleton, then content by window.

Both are plain functions of a store (run by the view's task runners, and by the
benchmarks directly); they read through the calling thread's own connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.app.kept import paths as kept_paths
from explorer.app.views.tree_view import tended_view
from explorer.store import Store
from explorer.store import reads_path as rp
from explorer.store.reads_path import PathColumns
from explorer.store.turn_reads import read_subagents
from explorer.tree.model import Message
from explorer.ui.background.tasks import Ticket
from explorer.ui.transcript.row_table import MessageRows, RowTable
from explorer.ui.transcript.rows import Metrics


@dataclass(frozen=True, eq=False)
class PathSkeleton:
    """Everything the transcript needs to lay out a path, and no message content."""

    conversation_id: int
    tip: int | None
    entries: PathColumns
    rewinds: list[dict[str, Any]] = field(default_factory=list)
    compactions: list[dict[str, Any]] = field(default_factory=list)
    labels: dict[int, list[str]] = field(default_factory=dict)
    context_start: int | None = None
    clean_tip: int | None = None
    unkept: kept_paths.Unkept | None = None  # read, not kept: the view may keep it later


@dataclass(frozen=True, eq=False)
class WindowContent:
    """Messages near the viewport, with what their cards look up (siblings, tool names)."""

    messages: dict[int, Message]
    siblings: dict[int, list[int]]
    tool_names: dict[str, str]
    asked: tuple[int, ...] = ()


def read_skeleton(store: Store, conv_id: int, tip: int | None = None,
                  ticket: Ticket | None = None) -> PathSkeleton:
    """The path to ``tip`` (default: the conversation's tip) as skeleton entries."""
    conv = store.conversation(conv_id)
    target = tip if tip is not None else conv.tip_id
    if ticket is not None:
        ticket.check()
    # The store's shared walk: the graph and the context figure ask for the same path.
    entries, unkept = (kept_paths.read(store, conv_id, target)  # kept by convo import
                       if target is not None else (PathColumns(), None))
    if ticket is not None:
        ticket.check()
    return PathSkeleton(conv_id, target, entries, store.rewinds(conv_id),
                        store.compactions(conv_id), checkpoint_labels(store, conv_id),
                        conv.context_start_id, conv.clean_tip_id, unkept)


def checkpoint_labels(store: Store, conv_id: int) -> dict[int, list[str]]:
    labels: dict[int, list[str]] = {}
    for label, mid in store.checkpoints(conv_id).items():
        labels.setdefault(mid, []).append(label)
    return labels


@dataclass(frozen=True, eq=False)
class PreparedPath:
    """A skeleton turned into rows with estimated heights, ready for the view to take over."""

    skeleton: PathSkeleton
    rows: RowTable
    heights: Sequence[int]
    message_row: MessageRows
    width: int
    notes: dict[int, list[str]] = field(default_factory=dict)  # notes, markers, stale (T6, T7)
    archived: frozenset[int] = frozenset()  # archived alternatives, out of ◀ ▶'s count
    subagents: dict[str, str] = field(default_factory=dict)  # spawning call id → agent name
    tip_content: WindowContent | None = None  # the last rows' content, read in the same job
    complete: bool = True  # False: only the path's last rows (the rest is being read)


TIP_ROWS = 40
"""Messages at the path's end read first, with their content (a screen or two)."""


TIP_WAIT_S = 0.5
"""Longest the rest of the path waits for the view to have built the tip's cards."""


Width = int | Callable[[], int]
"""The card width to guess heights for, or where to read it when the guess is made: the
window may be resized between asking for a path and its rows being built."""


def _at(width: Width) -> int:
    return width() if callable(width) else width


def prepare_tip_first(store: Store, conv_id: int, tip: int | None, width: Width,
                      metrics: Metrics, ticket: Ticket,
                      shown: threading.Event | None = None) -> PreparedPath:
    """The path's end first, reported as progress (V2), then the whole path as the result.

    Reading the whole skeleton grows with the path (a quarter of a second for
    5,000 messages, seconds for 100,000), but the window opens at the tip: its
    screenful is read by a walk of ``TIP_ROWS`` parents and shown while the rest
    is read. A path that short is read whole at once. ``shown``, set by the view
    once the tip's cards are built, holds the rest back until then, so the two
    do not share the interpreter while the first screen is made.
    """
    start = prepare_tip(store, conv_id, tip, width, metrics, ticket)
    if start is not None:
        ticket.report(start)
        waited = 0.0
        while shown is not None and not shown.wait(0.02) and waited < TIP_WAIT_S:
            ticket.check()
            waited += 0.02
    return prepare_path(store, conv_id, tip, width, metrics, ticket,
                        start.tip_content if start is not None else None)


def prepare_tip(store: Store, conv_id: int, tip: int | None, width: Width, metrics: Metrics,
                ticket: Ticket | None = None) -> PreparedPath | None:
    """The last ``TIP_ROWS`` messages of the path as rows with their content, or None when
    the path has no more messages than that.

    What needs the whole path waits for it: the clean boundary (derived from
    every tool call on the path) and the notes of the tended view.
    """
    conv = store.conversation(conv_id, boundary=False)
    target = tip if tip is not None else conv.tip_id
    if target is None:
        return None
    ids = rp.tip_ids(store.reader, target, TIP_ROWS + 1)
    if len(ids) <= TIP_ROWS:
        return None
    del ids[0]  # read only to learn that the path goes on above
    skeleton = PathSkeleton(conv_id, target, rp.columns_of(store.reader, ids),
                            store.rewinds(conv_id), store.compactions(conv_id),
                            checkpoint_labels(store, conv_id), conv.context_start_id)
    if ticket is not None:
        ticket.check()
    rows, now = _rows(skeleton), _at(width)
    return PreparedPath(skeleton, rows, rows.estimates(now, metrics), rows.message_rows(),
                        now, subagents=spawning_calls(store, conv_id),
                        tip_content=read_window(store, ids), complete=False)


def _rows(skeleton: PathSkeleton) -> RowTable:
    return RowTable(skeleton.entries, rewinds=skeleton.rewinds,
                    compactions=skeleton.compactions, context_start=skeleton.context_start,
                    clean_tip=skeleton.clean_tip)


def prepare_path(store: Store, conv_id: int, tip: int | None, width: Width, metrics: Metrics,
                 ticket: Ticket | None = None, tip_content: WindowContent | None = None,
                 ) -> PreparedPath:
    """Everything up to the view's first paint, done off the main thread (V2).

    With 80,000 messages building the rows and guessing their heights is itself
    a few hundred milliseconds of Python, so it runs here too, with the font
    measures the view had when it asked and the width it has now. ``tip_content``: the last
    rows' content when it was read already (by :func:`prepare_tip`).
    """
    skeleton = read_skeleton(store, conv_id, tip, ticket)
    rows = _rows(skeleton)
    if ticket is not None:
        ticket.check()
    now = _at(width)
    heights = rows.estimates(now, metrics)
    message_row = rows.message_rows()
    notes, archived = path_notes(store, conv_id, skeleton.entries.ids)
    # The window opens at the tip: its neighbourhood's content comes with the rows, so the
    # first screen needs no second read (a round trip through the content worker).
    if tip_content is None and len(skeleton.entries):
        tip_content = read_window(store, list(skeleton.entries.ids[-TIP_ROWS:]))
    return PreparedPath(skeleton, rows, heights, message_row, now, notes, archived,
                        spawning_calls(store, conv_id), tip_content)


def spawning_calls(store: Store, conv_id: int) -> dict[str, str]:
    """The calls that started a subagent, by tool_use id, with the subagent's name: their
    rows offer to open its transcript."""
    return {info.tool_use_id: info.name for info in read_subagents(store.reader, conv_id).values()
            if info.tool_use_id}


def path_notes(store: Store, conv_id: int, ids: Iterable[int]
               ) -> tuple[dict[int, list[str]], frozenset[int]]:
    """What the cards show beside a message (branch names, notes, what is folded or deleted
    below it, stale answers) and which alternatives are archived, from the tended view.

    Only the messages the view has something to say about are looked at, not every
    message of the path (80,000 lookups for a handful of notes)."""
    tended = tended_view(store, conv_id)
    marks = tended.marks
    said = {*marks.archived, *marks.preferred, *marks.notes, *marks.labels, *tended.stale,
            *(m.at for m in tended.markers if m.at is not None),
            *(end for link in tended.merges for end in link)}
    notes: dict[int, list[str]] = {}
    for mid in said.intersection(ids):
        found = tended.notes_for(mid)
        if mid in marks.labels:
            found.insert(0, f"⎇ {marks.labels[mid]}")
        if found:
            notes[mid] = found
    return notes, frozenset(marks.archived)


def read_window(store: Store, ids: Sequence[int]) -> WindowContent:
    """Content for ``ids``: long part text cut at :data:`~rp.FOLD_CHARS`, sizes kept."""
    conn = store.reader
    messages = rp.window_messages(conn, ids)
    around = {m.parent_id for m in messages.values() if isinstance(m.parent_id, int)}
    names = rp.tool_names_in(conn, sorted(around | set(messages)))
    return WindowContent(messages, rp.sibling_lists(conn, ids), names, tuple(ids))


def read_part(store: Store, mid: int, index: int) -> str:
    """The whole text of a folded part."""
    return rp.part_text(store.reader, mid, index)
