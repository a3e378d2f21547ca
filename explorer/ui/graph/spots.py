"""Where the fixed-size labels may go: label nodes indexed by row band, found with bisection.

A bushy 100,000-message tree has tens of thousands of branch points; testing
each one against the view on every frame cost most of a frame. Here the nodes of
one kind are grouped into bands of rows and sorted by x inside a band, so a query
touches only the occupied bands that meet the view and, inside each, only the
nodes between the view's left and right edge. A query also stops after
``limit`` nodes: the painter never draws more than a few hundred labels, so a
frame's cost is bounded whatever the zoom.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from explorer.ui.graph.model import BOX_H, BOX_W, ROW_H, GraphModel

BAND_ROWS = 4
_BAND_H = ROW_H * BAND_ROWS
View = tuple[float, float, float, float]


@dataclass(frozen=True, eq=False)
class Spots:
    """Nodes of one kind by band: the occupied band numbers, and per band its xs and nodes."""

    bands: array[int]  # sorted
    xs: tuple[array[float], ...]  # per band, sorted
    nodes: tuple[array[int], ...]  # per band, in the order of ``xs``
    ys: array[float]  # the model's, by node position

    def __len__(self) -> int:
        return sum(len(n) for n in self.nodes)

    def query(self, view: View, limit: int) -> Iterator[int]:
        """Nodes whose box meets ``view`` (scene units), top band first, at most ``limit``."""
        left, top, right, bottom = view
        top, bottom = top - BOX_H, bottom + BOX_H
        left, right = left - BOX_W, right + BOX_W
        first = bisect_left(self.bands, int(top // _BAND_H))
        last = bisect_right(self.bands, int(bottom // _BAND_H))
        given = 0
        ys = self.ys
        for b in range(first, last):
            xs, nodes = self.xs[b], self.nodes[b]
            for k in range(bisect_left(xs, left), bisect_right(xs, right)):
                i = nodes[k]
                if top <= ys[i] <= bottom:
                    yield i
                    given += 1
                    if given >= limit:
                        return


def build_spots(nodes: Iterable[int], xs: array[float], ys: array[float]) -> Spots:
    by_band: dict[int, list[tuple[float, int]]] = {}
    for i in nodes:
        by_band.setdefault(int(ys[i] // _BAND_H), []).append((xs[i], i))
    bands = sorted(by_band)
    rows = [sorted(by_band[b]) for b in bands]
    return Spots(array("q", bands), tuple(array("d", (x for x, _ in r)) for r in rows),
                 tuple(array("i", (i for _, i in r)) for r in rows), ys)


@dataclass(frozen=True, eq=False)
class LabelSpots:
    """Every kind of fixed-size label's nodes: named (checkpoints), subagent starts,
    branch points, model changes, named branches (``convo label``) and notes."""

    names: Spots
    sides: Spots
    branches: Spots
    changes: Spots
    branch_names: Spots
    memos: Spots


def build_label_spots(
    model: GraphModel, sides: Iterable[int], branches: Iterable[int]
) -> LabelSpots:
    xs, ys = model.xs, model.ys
    changes = model.turns.model_changes if model.turns is not None else {}
    return LabelSpots(build_spots(model.labels, xs, ys), build_spots(sides, xs, ys),
                      build_spots(branches, xs, ys), build_spots(changes, xs, ys),
                      build_spots(model.names, xs, ys), build_spots(model.memos, xs, ys))


def no_label_spots() -> LabelSpots:
    none = Spots(array("q"), (), (), array("d"))
    return LabelSpots(none, none, none, none, none, none)
