"""Where the graph's dots and edges fall: coordinates gathered per coarse cell, Qt-free.

The graph's geometry (:mod:`explorer.ui.graph.geometry`) turns each cell's shapes into
polygons and paths; gathering them is a Python walk over every node and edge, and laying
them out as Qt streams them is long byte shuffling, so for a big conversation both are
done in the process that builds the model (:mod:`explorer.app.graph.turn_child`) and only the
bytes travel.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from dataclasses import dataclass

from explorer.app.graph.model import (
    BOX_H,
    BOX_W,
    COL_W,
    F_ACTIVE,
    F_SIDE,
    F_TIP,
    MARK_FLAGS,
    ROW_H,
    GraphModel,
)
from explorer.app.graph.qt_streams import polygon_bytes, segment_bytes
from explorer.app.graph.spots import LabelSpots, build_label_spots

BATCH_COLS = 64  # coarse cell size in layout columns and rows
BATCH_ROWS = 32

_BW, _BH = COL_W * BATCH_COLS, ROW_H * BATCH_ROWS
Key = tuple[int, int]
Cells = dict[Key, dict[str, bytes]]
"""Per cell, per kind (``s<style>`` and ``active_dots``: dots; ``edges``, ``active_edges``,
``side_edges``: segments), the bytes Qt streams the polygon or the path from."""
EDGE_KINDS = ("edges", "active_edges", "side_edges")


@dataclass(frozen=True, eq=False)
class Collected:
    """What the geometry needs before Qt: each cell's shapes as stream bytes, and the
    labelled nodes."""

    cells: Cells
    marked: array[int]  # nodes with a mark or the tip
    branches: array[int]  # own branch points
    sides: array[int]  # subagent starts
    spots: LabelSpots  # the labelled nodes, found fast


def collect(model: GraphModel, cancelled: Callable[[], bool] = lambda: False
            ) -> Collected | None:
    """Every dot and edge of ``model`` in its cell, and the nodes labelled at every zoom;
    None when ``cancelled`` said so between the two walks."""
    col = _Collector()
    _collect_dots(model, col)
    if cancelled():
        return None
    _collect_edges(model, col)
    cells = {key: {kind: segment_bytes(coords) if kind in EDGE_KINDS else polygon_bytes(coords)
                   for kind, coords in kinds.items()}
             for key, kinds in col.cells.items()}
    marked, branches, sides = _label_nodes(model)
    return Collected(cells, marked, branches, sides, build_label_spots(model, sides, branches))


def cell_key(x: float, y: float) -> Key:
    """The coarse cell holding the scene point."""
    return math.floor(x / _BW), math.floor(y / _BH)


class _Collector:
    """Coordinates gathered per cell before they become polygons."""

    def __init__(self) -> None:
        self.cells: dict[Key, dict[str, array[float]]] = {}

    def add(self, key: Key, kind: str, *coords: float) -> None:
        cell = self.cells.get(key)
        if cell is None:
            cell = self.cells[key] = {}
        buf = cell.get(kind)
        if buf is None:
            buf = cell[kind] = array("d")
        buf.extend(coords)

    def span(self, kind: str, row_y: float, x0: float, x1: float, y: float) -> None:
        """A horizontal line split at cell borders, so each piece is culled with its cell."""
        r = math.floor(row_y / _BH)
        x = x0
        while x < x1:
            c = math.floor(x / _BW)
            end = min(x1, (c + 1) * _BW)
            self.add((c, r), kind, x, y, end, y)
            x = end


def _label_nodes(model: GraphModel) -> tuple[array[int], array[int], array[int]]:
    """Nodes labelled at every zoom: marks and the tip, branch points, subagent starts."""
    flags = model.flags
    marked = array("i", (i for i in range(len(model)) if flags[i] & (MARK_FLAGS | F_TIP)))
    start = model.child_start
    many = array("i", (i for i in range(len(model)) if start[i + 1] - start[i] > 1))
    branches = array("i", (i for i in many if model.branch_count(i) > 1))
    sides = array("i", (i for i in range(len(model)) if flags[i] & F_SIDE))
    return marked, branches, sides


def _collect_dots(model: GraphModel, col: _Collector) -> None:
    xs, ys, styles, flags = model.xs, model.ys, model.styles, model.flags
    for i in range(len(model)):
        x, y = xs[i], ys[i]
        key = (math.floor(x / _BW), math.floor(y / _BH))
        col.add(key, f"s{styles[i]}", x, y)
        if flags[i] & F_ACTIVE:
            col.add(key, "active_dots", x, y)


def _collect_edges(model: GraphModel, col: _Collector) -> None:
    """Elbow edges: parent stub, one span per parent, a stub per child."""
    xs, ys, flags, half = model.xs, model.ys, model.flags, BOX_H / 2
    for p in range(len(model)):
        kids = model.children(p)
        if not kids:
            continue
        xp, yp = xs[p], ys[p]
        key = cell_key(xp, yp)
        if any(flags[c] & F_SIDE for c in kids):
            _collect_side_edges(model, col, p)
            kids = array("i", (c for c in kids if not flags[c] & F_SIDE))
            if not kids:
                continue
        if len(kids) == 1 and xs[kids[0]] == xp:  # a straight run: one segment
            c = kids[0]
            kind = "active_edges" if flags[c] & F_ACTIVE else "edges"
            col.add(cell_key(xs[c], ys[c]), kind, xp, yp + half, xp, ys[c] - half)
            continue
        ym = yp + ROW_H / 2
        col.add(key, "edges", xp, yp + half, xp, ym)
        kid_xs = [xs[c] for c in kids]  # in the model's order, not always left to right
        col.span("edges", yp, min(xp, *kid_xs), max(xp, *kid_xs), ym)
        for c in kids:
            xc = xs[c]
            active = flags[c] & F_ACTIVE
            col.add(cell_key(xc, ys[c]), "active_edges" if active else "edges",
                    xc, ym, xc, ys[c] - half)
            if active:
                col.add(key, "active_edges", xp, yp + half, xp, ym)
                col.span("active_edges", yp, min(xp, xc), max(xp, xc), ym)


SIDE_BUS = ROW_H / 2 + 6.0
"""How far below its caller a subagent link runs across: in the gap between two rows, a
little under the tree's own edges, so it never crosses a box of the caller's row."""


def _collect_side_edges(model: GraphModel, col: _Collector, p: int) -> None:
    """From the spawning node's right side into the gutter beside it, down into the gap
    below its row, across to the subagent's column, and down to its first node: every piece
    runs between boxes, never through one."""
    xs, ys, flags = model.xs, model.ys, model.flags
    xp, yp = xs[p] + BOX_W / 2, ys[p]
    gutter, bus = xs[p] + COL_W / 2, yp + SIDE_BUS
    sides = [c for c in model.children(p) if flags[c] & F_SIDE]
    if not sides:
        return
    key = cell_key(xs[p], yp)
    col.add(key, "side_edges", xp, yp, gutter, yp)
    col.add(key, "side_edges", gutter, yp, gutter, bus)
    at = [xs[c] for c in sides]
    col.span("side_edges", yp, min(gutter, *at), max(gutter, *at), bus)
    for c in sides:
        col.add(cell_key(xs[c], ys[c]), "side_edges", xs[c], bus, xs[c], ys[c] - BOX_H / 2)


