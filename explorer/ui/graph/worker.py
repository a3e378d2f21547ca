"""Reading, laying out and batching a conversation's tree off the main thread.

``build_graph`` is the whole job as a plain function (the tests and benchmarks
call it directly); ``graph_job`` wraps it for the window's one task runner, which
hands the result back on the main thread. A job checks its cancel flag between
stages, so a newer request or a closing window never waits long for a stale one.
A big conversation's turn graph is built, all but its Qt part, by a child process
(:mod:`explorer.app.graph.turn_child` says why); this thread then makes only the polygons
and the overview image.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial
from typing import Literal

from explorer.app.graph.marks import read_marks
from explorer.app.graph.turn_build import build_model as build_turn_model_of
from explorer.app.graph.turn_build import build_view
from explorer.app.graph.turn_process import CHILD_MIN_MESSAGES
from explorer.app.graph.turn_text import TurnView
from explorer.app.kept.turns import kept_or_built
from explorer.app.views.read import tree_marks
from explorer.store import Store
from explorer.tree.spine_layout import spine_layout
from explorer.ui.background.tasks import Cancelled, Job, Ticket
from explorer.ui.graph.geometry import Geometry, build_geometry
from explorer.ui.graph.model import GraphMarks, GraphModel, build_model
from explorer.ui.graph.palette import GraphPalette

Mode = Literal["turns", "messages"]


@dataclass(frozen=True, eq=False)
class GraphData:
    conversation_id: int
    model: GraphModel
    geometry: Geometry
    layout_computed: bool  # False when the stored layout was used
    layout_computed_at: float
    mode: Mode = "messages"
    turn_view: TurnView | None = None  # the projection the turn view drew


def build_graph(
    store: Store, conv_id: int, palette: GraphPalette,
    cancelled: Callable[[], bool] = lambda: False,
) -> GraphData:
    """Skeleton, marks and layout (stored, or computed and stored) → model → geometry."""
    view_marks = tree_marks(store, conv_id)
    marks = read_marks(store, conv_id, view_marks)
    # Archived branches fold into the marker their branch point carries (T6).
    nodes = [n for n in store.skeleton(conv_id) if n.id not in view_marks.hidden]
    ids = array("q", (n.id for n in nodes))
    _check(cancelled)
    stored = store.load_layout(conv_id)
    if (stored is not None and stored.ids == ids and not marks.side_links
            and _spine_kept(stored.xs, ids, marks)):
        xs, depths, computed, stamp = stored.xs, stored.depths, False, stored.computed_at
    else:
        links = marks.side_links
        index = {mid: i for i, mid in enumerate(ids)}
        parents = [index.get(links.get(n.id, -1) if n.parent_id is None else n.parent_id, -1)
                   for n in nodes]
        lay = spine_layout(parents, index.get(marks.tip, -1) if marks.tip is not None else -1)
        _check(cancelled)
        xs, depths, computed = lay.xs, lay.depths, True
        stamp = store.save_layout(conv_id, ids, xs, depths)
    model = build_model(nodes, marks, xs, depths)
    del nodes
    _check(cancelled)
    geometry = build_geometry(model, palette, cancelled)
    _check(cancelled)
    return GraphData(conv_id, model, geometry, computed, stamp)


def _spine_kept(xs: array[float], ids: array[int], marks: GraphMarks) -> bool:
    """A stored layout still fits when exactly the active path is its straight column 0."""
    active = marks.active
    straight = sum(1 for x in xs if x == 0.0)
    return straight == len(active) and all(
        xs[i] == 0.0 for i, mid in enumerate(ids) if mid in active)


def build_turn_graph(
    store: Store, conv_id: int, palette: GraphPalette,
    cancelled: Callable[[], bool] = lambda: False, expanded: Collection[int] = (),
    previous: TurnView | None = None, child: bool = False,
) -> GraphData:
    """The turn view: projection (V1) → layout of its nodes → model → geometry.

    ``previous`` is an earlier turn view of the same unchanged conversation: its
    read and grouping are reused when only the folding changed (a run expanded).
    With ``child`` all of it but the geometry's Qt part is built by a child process
    (:mod:`explorer.app.graph.turn_child` says why), here when no process can be had.
    """
    built = None
    if child and not (previous is not None and previous.conversation_id == conv_id):
        built = kept_or_built(store, conv_id, expanded, cancelled)
        _check(cancelled)
    if built is not None:
        view, model, collected = built.view, built.model, built.collected
    else:
        check = partial(_check, cancelled)
        view = build_view(store, conv_id, expanded, previous, check)
        model = build_turn_model_of(store, conv_id, view, check)
        collected = None
    _check(cancelled)
    geometry = build_geometry(model, palette, cancelled, collected)
    _check(cancelled)
    return GraphData(conv_id, model, geometry, True, 0.0, "turns", view)


def in_child(store: Store, conv_id: int) -> bool:
    """Whether a turn graph is big enough to be worth a process of its own."""
    return store.conversation(conv_id, boundary=False).message_count >= CHILD_MIN_MESSAGES


def _check(cancelled: Callable[[], bool]) -> None:
    if cancelled():
        raise Cancelled


def graph_job(
    store: Store, conv_id: int, palette: GraphPalette, mode: Mode = "messages",
    expanded: Collection[int] = (), previous: TurnView | None = None,
) -> Job:
    """One load as a :class:`~explorer.ui.background.tasks.TaskRunner` job (cancelled between
    stages)."""
    expanded = frozenset(expanded)

    def job(ticket: Ticket) -> GraphData:
        if mode == "turns":
            child = previous is None and in_child(store, conv_id)
            return build_turn_graph(store, conv_id, palette, ticket.is_cancelled, expanded,
                                    previous, child)
        return build_graph(store, conv_id, palette, ticket.is_cancelled)

    return job
