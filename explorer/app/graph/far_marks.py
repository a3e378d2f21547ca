"""What a big tree must still say when the whole of it is a line on screen (V3).

At fit-all a 100,000-message session is thousands of rows tall and a few columns wide: the
overview image shrinks it to one bare stroke, and the branch points, rewinds and
checkpoints that make it a tree vanish. These are the few things drawn there at a fixed
on-screen size instead: every branch point with the weight of what leaves it, the marked
nodes (checkpoints, rewinds, compactions, forks), the active path, and every node's
height for a density strip. Read once per tree, Qt-free; the window draws them.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from explorer.app.graph.model import (
    F_ACTIVE,
    F_CHECKPOINT,
    F_COMPACTION,
    F_FORK,
    F_REWIND,
    GraphModel,
)

SPOT_FLAGS = ((F_CHECKPOINT, "checkpoint"), (F_REWIND, "rewind"),
              (F_COMPACTION, "compaction"), (F_FORK, "fork"))
"""The marks a far view keeps, in drawing order (the later is drawn over the earlier)."""


@dataclass(frozen=True, eq=False)
class FarMarks:
    branch_x: array[float]
    branch_y: array[float]
    branch_weight: array[int]  # messages (or turns) in the branches that leave the main line
    spot_x: array[float]
    spot_y: array[float]
    spot_kind: bytes  # an index into SPOT_FLAGS
    active_x: array[float]  # the active path, root to tip
    active_y: array[float]

    @property
    def branch_points(self) -> int:
        return len(self.branch_x)


def subtree_sizes(model: GraphModel) -> array[int]:
    """Nodes under each node, itself included. Children come after their parents in a
    model's order almost always; a subagent hung off a later call is counted from where
    it is, which only lightens a glyph's weight."""
    parents = model.parents
    sizes = array("i", [1]) * len(model)
    for i in range(len(model) - 1, -1, -1):
        p = parents[i]
        if p >= 0:
            sizes[p] += sizes[i]
    return sizes


def far_marks(model: GraphModel) -> FarMarks:
    """One pass over the nodes: branch points with their weight, marks, the active path."""
    sizes = subtree_sizes(model)
    flags, xs, ys = model.flags, model.xs, model.ys
    bx, by, bw = array("d"), array("d"), array("i")
    spots: list[tuple[int, float, float]] = []
    active: list[int] = []
    marked = 0
    for flag, _name in SPOT_FLAGS:
        marked |= flag
    for p in range(len(model)):
        f = flags[p]
        if f & F_ACTIVE:
            active.append(p)
        if f & marked:
            spots += [(k, xs[p], ys[p]) for k, (flag, _n) in enumerate(SPOT_FLAGS) if f & flag]
        kids = model.children(p)
        if len(kids) < 2:
            continue
        main = next((c for c in kids if flags[c] & F_ACTIVE), None)
        if main is None:
            main = max(kids, key=lambda c: sizes[c])
        bx.append(xs[p])
        by.append(ys[p])
        bw.append(sum(sizes[c] for c in kids if c != main))
    spots.sort(key=lambda s: s[0])  # drawing order: the later kinds over the earlier
    active.sort(key=lambda i: ys[i])
    return FarMarks(bx, by, bw, array("d", (s[1] for s in spots)),
                    array("d", (s[2] for s in spots)), bytes(s[0] for s in spots),
                    array("d", (xs[i] for i in active)), array("d", (ys[i] for i in active)))
