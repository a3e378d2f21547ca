"""Where the fixed-size labels may go: label nodes indexed by row band, found with bisection.

A bushy 100,000-message tree has tens of thousands of branch points; testing
each one against the view on every frame cost most of a frame. Here the nodes of
one kind are grouped into bands of rows and sorted by x inside a band, so a query
touches only the occupied bands that meet the view and, inside each, only the
nodes between the view's left and right edge. A query also stops after
``limit`` nodes: the painter never draws more than a few hundred labels, so a
frame's cost is bounded whatever the zoom. The bands are offsets into two flat
arrays (no array per band), so a big conversation's spots, made in the process that
builds its model (:mod:`explorer.app.graph.turn_child`), travel as four byte strings a kind.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from explorer.app.graph.model import BOX_H, BOX_W, ROW_H, GraphModel

BAND_ROWS = 4
_BAND_H = ROW_H * BAND_ROWS
View = tuple[float, float, float, float]


@dataclass(frozen=True, eq=False)
class Spots:
    """Nodes of one kind by band: the occupied band numbers, and band ``b``'s nodes at
    ``starts[b]:starts[b + 1]`` of ``xs`` (sorted inside the band) and ``nodes``."""

    bands: array[int]  # sorted
    starts: array[int]  # one more than there are bands
    xs: array[float]
    nodes: array[int]  # in the order of ``xs``
    ys: array[float]  # the model's, by node position

    def __len__(self) -> int:
        return len(self.nodes)

    def query(self, view: View, limit: int) -> Iterator[int]:
        """Nodes whose box meets ``view`` (scene units), top band first, at most ``limit``."""
        left, top, right, bottom = view
        top, bottom = top - BOX_H, bottom + BOX_H
        left, right = left - BOX_W, right + BOX_W
        first = bisect_left(self.bands, int(top // _BAND_H))
        last = bisect_right(self.bands, int(bottom // _BAND_H))
        given = 0
        xs, nodes, starts, ys = self.xs, self.nodes, self.starts, self.ys
        for b in range(first, last):
            lo, hi = starts[b], starts[b + 1]
            for k in range(bisect_left(xs, left, lo, hi), bisect_right(xs, right, lo, hi)):
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
    starts, flat_xs, flat_nodes = array("q", [0]), array("d"), array("i")
    for b in bands:
        row = sorted(by_band[b])
        flat_xs.extend(x for x, _ in row)
        flat_nodes.extend(i for _, i in row)
        starts.append(len(flat_nodes))
    return Spots(array("q", bands), starts, flat_xs, flat_nodes, ys)


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
    none = Spots(array("q"), array("q", [0]), array("d"), array("i"), array("d"))
    return LabelSpots(none, none, none, none, none, none)
