"""Spine layout: the active path drawn as one straight column, every other branch beside it.

A tidy layout centres each parent over its children, so a long session with a
rewind every few hundred messages drifts one column at every rewind and its
fit-all picture is a diagonal. Here the path from the root to the tip is column
0, top to bottom; each subtree that leaves it (an abandoned branch, a subagent,
another root) is laid out tidily on its own and placed to the right, as close to
the spine as the rows it occupies allow (a skyline per row, like ``git log
--graph``). The fit-all picture of a deep session reads as a line with side
branches, and the active path never moves sideways when the tip stays.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from explorer.tree.layout import TreeLayout, _children, _rooted_parents, tidy_layout


def spine_layout(parents: Sequence[int], tip: int) -> TreeLayout:
    """Lay out the forest given by parent indices with the path to ``tip`` as column 0.

    Without a valid tip there is no spine: the plain tidy layout is returned.
    """
    n = len(parents)
    if not 0 <= tip < n:
        return tidy_layout(parents)
    par = _rooted_parents(parents)  # roots hang off a virtual root n
    kids = _children(par, n + 1)
    on_spine = bytearray(n)
    spine: list[int] = []
    v = tip
    while v != n:
        on_spine[v] = 1
        spine.append(v)
        v = par[v]
    spine.reverse()
    xs = array("d", [0.0]) * n
    depths = array("i", [0]) * n
    for d, s in enumerate(spine):
        depths[s] = d
    attached = [(d + 1, c) for d, s in enumerate(spine) for c in kids[s] if not on_spine[c]]
    attached += [(0, r) for r in kids[n] if not on_spine[r]]  # other roots: beside, last
    sky: dict[int, float] = {}  # rightmost column taken, by row (the spine is column 0)
    for top, root in attached:
        _place(root, top, kids, xs, depths, sky)
    return TreeLayout(xs, depths)


def _place(
    root: int, top: int, kids: list[list[int]], xs: array[float], depths: array[int],
    sky: dict[int, float],
) -> None:
    """Lay the subtree at ``root`` out tidily and put it right of everything in its rows."""
    nodes = [root]
    local_parent = [-1]
    chain = True
    k = 0
    while k < len(nodes):  # breadth first: a node's children follow it, in order
        below = kids[nodes[k]]
        chain = chain and len(below) <= 1
        for c in below:
            nodes.append(c)
            local_parent.append(k)
        k += 1
    if chain:  # a straight branch (most of them): one column, no tidy pass needed
        cols = array("d", [0.0]) * len(nodes)
        rows = array("i", range(len(nodes)))
    else:
        lay = tidy_layout(local_parent)
        cols, rows = lay.xs, lay.depths
    low: dict[int, float] = {}
    high: dict[int, float] = {}
    for x, d in zip(cols, rows, strict=True):
        if x < low.get(d, x + 1):
            low[d] = x
        if x > high.get(d, x - 1):
            high[d] = x
    offset = 1.0
    for d, x in low.items():
        offset = max(offset, sky.get(top + d, 0.0) + 1.0 - x)
    for d, x in high.items():
        sky[top + d] = max(sky.get(top + d, 0.0), offset + x)
    for v, x, d in zip(nodes, cols, rows, strict=True):
        xs[v] = offset + x
        depths[v] = top + d
