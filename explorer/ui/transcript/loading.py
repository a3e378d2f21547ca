"""What the transcript reads off the main thread: a path's skeleton, then content by window.

Both are plain functions of a store (run by the view's task runners, and by the
benchmarks directly); they read through the calling thread's own connection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.app.tree_view import tended_view
from explorer.store import Store
from explorer.store import reads_path as rp
from explorer.store.reads_path import PathColumns
from explorer.store.turn_reads import read_subagents
from explorer.tree.model import Message
from explorer.ui.tasks import Ticket
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
    entries = rp.path_columns(store.reader, target) if target is not None else PathColumns()
    if ticket is not None:
        ticket.check()
    labels: dict[int, list[str]] = {}
    for label, mid in store.checkpoints(conv_id).items():
        labels.setdefault(mid, []).append(label)
    return PathSkeleton(conv_id, target, entries, store.rewinds(conv_id),
                        store.compactions(conv_id), labels, conv.context_start_id,
                        conv.clean_tip_id)


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


TIP_ROWS = 40
"""Messages at the path's end whose content is read with the skeleton (a screen or two)."""


def prepare_path(store: Store, conv_id: int, tip: int | None, width: int, metrics: Metrics,
                 ticket: Ticket | None = None) -> PreparedPath:
    """Everything up to the view's first paint, done off the main thread (V2).

    With 80,000 messages building the rows and guessing their heights is itself
    a few hundred milliseconds of Python, so it runs here too, with the font
    measures and width the view had when it asked.
    """
    skeleton = read_skeleton(store, conv_id, tip, ticket)
    rows = RowTable(skeleton.entries, rewinds=skeleton.rewinds,
                    compactions=skeleton.compactions, context_start=skeleton.context_start,
                    clean_tip=skeleton.clean_tip)
    if ticket is not None:
        ticket.check()
    heights = rows.estimates(width, metrics)
    message_row = rows.message_rows()
    notes, archived = path_notes(store, conv_id, skeleton.entries.ids)
    # The window opens at the tip: its neighbourhood's content comes with the rows, so the
    # first screen needs no second read (a round trip through the content worker).
    last = list(skeleton.entries.ids[-TIP_ROWS:])
    tip_content = read_window(store, last) if last else None
    return PreparedPath(skeleton, rows, heights, message_row, width, notes, archived,
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
