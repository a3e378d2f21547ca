"""The turn graph's Qt-free stages, the same on the graph's worker thread and in its child.

A small conversation's graph is built on the worker (:mod:`explorer.ui.graph.worker`), a
big one's in a process of its own (:mod:`explorer.app.graph.turn_child` says why); both run
these functions, so the two ways draw the same graph. ``check`` is called between stages
and raises to stop (the worker's cancel flag); the child is stopped by being ended.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Collection
from dataclasses import replace
from functools import partial
from typing import Any

from explorer.app.graph.cells import Collected, collect
from explorer.app.graph.marks import read_marks
from explorer.app.graph.model import GraphModel
from explorer.app.graph.turn_model import build_turn_model
from explorer.app.graph.turn_text import TurnView, kept_messages
from explorer.app.graph.turn_wire import pack_cells, pack_model, pack_view
from explorer.app.views.read import tree_marks
from explorer.store import Store
from explorer.store.turn_reads import TurnSource, read_previews, read_turn_source
from explorer.tree.turn_grouping import group_columns
from explorer.tree.turn_runs import collapse_runs
from explorer.tree.turn_source import TurnColumns

Check = Callable[[], None]


def _go_on() -> None:
    pass


def build_view(
    store: Store, conv_id: int, expanded: Collection[int] = (),
    previous: TurnView | None = None, check: Check = _go_on,
) -> TurnView:
    """The projection (V1), its marks whole (the active path too). ``previous`` is an
    earlier view of the same unchanged conversation: its read and grouping are reused
    when only the folding changed (a run expanded)."""
    if previous is not None and previous.conversation_id == conv_id:
        view_marks = tree_marks(store, conv_id)
        check()
        source, tree = previous.source, previous.projection.tree
    else:
        read = read_turn_source(store.reader, conv_id)
        assert read.columns is not None
        check()
        view_marks = tree_marks(store, conv_id, path_to=partial(path_in, read.columns))
        check()
        tree = group_columns(  # archived branches: folded (T6)
            read.columns.without(view_marks.hidden), partial(read_previews, store.reader))
        # Once grouped, the columns are not needed again (a re-fold reuses the grouping).
        source = TurnSource(None, read.subagents, read.message_flags)
        del read
    check()
    projection = collapse_runs(tree, kept_messages(view_marks) | set(expanded))
    return TurnView(conv_id, source, projection, view_marks)


def path_in(columns: TurnColumns, tip: int) -> set[int] | None:
    """The ids from the root to ``tip``, walked up the columns' parent positions (the
    store's recursive read of a 94,000-message path took 0.15–0.3 s); None when ``tip``
    is not among them (written after they were read)."""
    ids = columns.ids
    if not columns.ids_sorted or not isinstance(ids, array):
        return None
    at = bisect_left(ids, tip)
    if at == len(ids) or ids[at] != tip:
        return None
    parents, out = columns.parents, set[int]()
    while at >= 0 and len(out) < len(ids):  # (a cycle cannot be stored; never looped on)
        out.add(ids[at])
        at = parents[at]
    return out


def build_model(store: Store, conv_id: int, view: TurnView, check: Check = _go_on
                ) -> GraphModel:
    """The view's graph model (marks read, nodes laid out). What the graph keeps of the
    view afterwards: the model's flags carry the active path, so the view's marks drop
    its set of ids (60,000 ints on the deep session, ~4 MB), and its source the tool flags
    read with the columns."""
    marks = read_marks(store, conv_id, view.marks, view.source.message_flags)
    check()
    model = build_turn_model(view, marks)
    view.marks = replace(view.marks, active=set())
    view.source = replace(view.source, message_flags=None)  # used: a re-fold reads the store's
    return model


def build_parts(store: Store, conv_id: int, expanded: Collection[int] = ()
                ) -> tuple[TurnView, GraphModel, Collected]:
    """Everything of the turn graph that needs no Qt: the view, its model and where each
    dot, edge and label falls (what the child sends)."""
    view = build_view(store, conv_id, expanded)
    model = build_model(store, conv_id, view)
    collected = collect(model)
    assert collected is not None  # nothing cancels it here
    return view, model, collected


def packed_parts(store: Store, conv_id: int, expanded: Collection[int] = ()
                 ) -> dict[str, Any]:
    """:func:`build_parts` packed for the pipe or the file, by the names of
    ``turn_process.PARTS`` and in that order."""
    view, model, collected = build_parts(store, conv_id, expanded)
    tree, projection, rest = pack_view(view)
    return {"tree": tree, "projection": projection, "rest": rest,
            "model": pack_model(model), "cells": pack_cells(collected)}
