"""An immutable snapshot of what the graph draws, with a grid index for culling and picking.

Everything is kept in flat arrays indexed by node position, not in an object per
message: a 100,000-message tree is a handful of arrays, cheap to build on a worker
and cheap to hand to the main thread. Nothing here needs Qt, so a big conversation's
model is built in a process of its own (:mod:`explorer.app.graph.turn_child`).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from explorer.store.layout_store import ERROR, TOOL_CALL, TOOL_RESULT
from explorer.store.reads import SkeletonNode

# Node styles, in the order the graph's palette holds their colours.
(STYLE_SYSTEM, STYLE_USER, STYLE_ASSISTANT, STYLE_TOOL_CALL, STYLE_TOOL_RESULT,
 STYLE_ERROR, STYLE_TURN, STYLE_AGENT, STYLE_RUN) = range(9)
STYLE_NAMES = ("system", "user", "assistant", "tool call", "tool result", "error", "turn",
               "subagent turn", "folded turns")

COL_W = 236.0  # scene units between two columns of the layout
ROW_H = 80.0  # scene units between two depths
BOX_W = 212.0
BOX_H = 46.0
CELL_COLS = 16  # grid cell size in layout columns and rows
CELL_ROWS = 8
PREVIEW_CHARS = 90

# Flag bits (the first three are the store's message flags).
F_TOOL_CALL, F_TOOL_RESULT, F_ERROR = TOOL_CALL, TOOL_RESULT, ERROR
F_ACTIVE, F_TIP, F_CHECKPOINT, F_FORK, F_REWIND, F_COMPACTION = 8, 16, 32, 64, 128, 256
F_CONTEXT_START, F_CLEAN_BOUNDARY = 512, 1024
F_SIDE = 2048  # the first node of a subagent: linked to its call, never anyone's sibling
F_RUN = 4096  # a folded straight run of turns
# Tending (T6, T7): branches folded or deleted below, an answer gone stale, a merge's ends.
F_ARCHIVED, F_DELETED, F_STALE, F_MERGE = 8192, 16384, 32768, 65536
TEND_FLAGS = F_ARCHIVED | F_DELETED | F_STALE | F_MERGE
MARK_FLAGS = F_CHECKPOINT | F_FORK | F_REWIND | F_COMPACTION | F_CONTEXT_START | F_CLEAN_BOUNDARY


@dataclass(frozen=True)
class GraphMarks:
    """What the store says about nodes beyond their role: all keyed by message id."""

    active: frozenset[int] = frozenset()
    tip: int | None = None
    labels: Mapping[int, Sequence[str]] = field(default_factory=dict)
    notes: Mapping[int, Sequence[str]] = field(default_factory=dict)
    message_flags: Mapping[int, int] = field(default_factory=dict)  # tool call/result/error
    rewinds: frozenset[int] = frozenset()
    forks: frozenset[int] = frozenset()
    compactions: frozenset[int] = frozenset()
    context_start: int | None = None
    clean_boundary: int | None = None
    side_links: Mapping[int, int] = field(default_factory=dict)  # subagent root → its call
    # branch point → (archived branches folded there, deleted branches waiting for undo)
    folded: Mapping[int, tuple[int, int]] = field(default_factory=dict)
    stale: frozenset[int] = frozenset()  # answers whose prompt chain was edited upstream
    merges: tuple[tuple[int, int], ...] = ()  # (side branch tip, merge message)
    branch_names: Mapping[int, str] = field(default_factory=dict)  # ``convo label`` names
    user_notes: Mapping[int, str] = field(default_factory=dict)  # ``convo note`` texts


@dataclass(frozen=True, eq=False)
class Tending:
    """What the tending glyphs draw, by node position."""

    folded: dict[int, tuple[int, int]] = field(default_factory=dict)  # (archived, deleted)
    merges: tuple[tuple[int, int], ...] = ()  # (side tip node, merge node), both drawn
    points: dict[int, tuple[int, ...]] = field(default_factory=dict)  # the branch point ids


def tending_by_node(marks: GraphMarks, index: Mapping[int, int]) -> Tending:
    """Marks keyed by message, summed per node (a turn node holds several messages)."""
    folded: dict[int, tuple[int, int]] = {}
    points: dict[int, tuple[int, ...]] = {}
    for mid, (archived, deleted) in marks.folded.items():
        i = index.get(mid)
        if i is not None:
            a, d = folded.get(i, (0, 0))
            folded[i] = (a + archived, d + deleted)
            points[i] = (*points.get(i, ()), mid)
    merges = tuple((index[tip], index[msg]) for tip, msg in marks.merges
                   if tip in index and msg in index and index[tip] != index[msg])
    return Tending(folded, merges, points)


@dataclass(frozen=True, eq=False)
class TurnInfo:
    """What the turn view draws beyond a node's position: by node position."""

    titles: Sequence[str]  # the prompt's first words, or "⋯ N turns" for a run
    answers: Sequence[str]  # the answer's first words
    chips: Sequence[str]  # tool calls and errors
    agents: dict[int, str]  # subagent name on the node where a subagent starts
    spans: Sequence[tuple[int, int]]  # (messages, turns) each node holds
    tooltips: Sequence[str]
    model_changes: dict[int, str] = field(default_factory=dict)  # node → model it switched to


@dataclass(frozen=True, eq=False)
class GraphModel:
    ids: array[int]
    index: Mapping[int, int]  # message id → node position
    parents: array[int]  # node position of the parent, -1 for a root
    xs: array[float]  # scene x of the node's centre
    ys: array[float]
    depths: array[int]
    styles: bytes  # palette style per node
    flags: array[int]
    child_start: array[int]  # children of i: child_list[child_start[i]:child_start[i + 1]]
    child_list: array[int]
    roots: array[int]
    previews: Sequence[str]
    labels: dict[int, tuple[str, ...]]  # by node position
    notes: dict[int, tuple[str, ...]]
    grid: dict[tuple[int, int], array[int]]
    bounds: tuple[float, float, float, float]  # left, top, right, bottom of all boxes
    tip: int  # node position of the conversation's tip, -1 when it has none
    turns: TurnInfo | None = None  # set when the nodes are turns, not messages
    tending: Tending = field(default_factory=Tending)
    names: dict[int, tuple[str, ...]] = field(default_factory=dict)  # branch names by node
    memos: dict[int, tuple[str, ...]] = field(default_factory=dict)  # a person's notes by node

    def __len__(self) -> int:
        return len(self.ids)

    def children(self, i: int) -> array[int]:
        return self.child_list[self.child_start[i] : self.child_start[i + 1]]

    def own_children(self, i: int) -> list[int]:
        """Children that continue the conversation: subagents hanging off ``i`` left out."""
        return [c for c in self.children(i) if not self.flags[c] & F_SIDE]

    def siblings(self, i: int) -> list[int]:
        """Own siblings (V1): a subagent's first node has none and is never counted."""
        if self.flags[i] & F_SIDE:
            return [i]
        p = self.parents[i]
        if p < 0:
            return [r for r in self.roots if not self.flags[r] & F_SIDE]
        return self.own_children(p)

    def branch_count(self, i: int) -> int:
        return len(self.own_children(i))

    def child_count(self, i: int) -> int:
        return self.child_start[i + 1] - self.child_start[i]

    def cells(
        self, left: float, top: float, right: float, bottom: float
    ) -> Iterator[tuple[tuple[int, int], array[int]]]:
        """Grid cells (key, node positions) that may hold a box meeting the scene rectangle."""
        c0, r0 = _cell(left - BOX_W, top - BOX_H)
        c1, r1 = _cell(right + BOX_W, bottom + BOX_H)
        grid = self.grid
        if (c1 - c0 + 1) * (r1 - r0 + 1) > 4 * len(grid):
            yield from ((k, v) for k, v in grid.items()
                        if c0 <= k[0] <= c1 and r0 <= k[1] <= r1)
            return
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                cell = grid.get((c, r))
                if cell is not None:
                    yield (c, r), cell

    def visible(self, left: float, top: float, right: float, bottom: float) -> Iterator[int]:
        """Positions of the nodes whose box meets the rectangle."""
        xs, ys, hw, hh = self.xs, self.ys, BOX_W / 2, BOX_H / 2
        for _key, cell in self.cells(left, top, right, bottom):
            for i in cell:
                if left - hw <= xs[i] <= right + hw and top - hh <= ys[i] <= bottom + hh:
                    yield i

    def tooltip(self, i: int) -> str:
        """What a hover over node ``i`` says: id, role, marks and the start of its text."""
        head = self.turns.tooltips[i] if self.turns else f"#{self.ids[i]}  {self.previews[i]}"
        lines = [head]
        lines += [f"checkpoint: {label}" for label in self.labels.get(i, ())]
        lines += list(self.notes.get(i, ()))
        if self.branch_count(i) > 1:
            lines.append(f"{self.branch_count(i)} branches")
        return "\n".join(lines)

    def node_at(self, x: float, y: float, tolerance: float = 0.0) -> int:
        """The node under a scene point (nearest one within ``tolerance`` of its box), or -1."""
        best, best_d = -1, math.inf
        hw, hh = BOX_W / 2 + tolerance, BOX_H / 2 + tolerance
        for i in self.visible(x - tolerance, y - tolerance, x + tolerance, y + tolerance):
            dx, dy = abs(self.xs[i] - x), abs(self.ys[i] - y)
            if dx <= hw and dy <= hh and dx + dy < best_d:
                best, best_d = i, dx + dy
        return best


def _cell(x: float, y: float) -> tuple[int, int]:
    return math.floor(x / (COL_W * CELL_COLS)), math.floor(y / (ROW_H * CELL_ROWS))


def style_of(role: str, flags: int) -> int:
    if flags & F_ERROR:
        return STYLE_ERROR
    if flags & F_TOOL_CALL:
        return STYLE_TOOL_CALL
    if flags & F_TOOL_RESULT or role == "tool":
        return STYLE_TOOL_RESULT
    return {"system": STYLE_SYSTEM, "user": STYLE_USER}.get(role, STYLE_ASSISTANT)


def build_model(
    nodes: Sequence[SkeletonNode], marks: GraphMarks, xs: Sequence[float], depths: Sequence[int]
) -> GraphModel:
    """The snapshot for ``nodes`` laid out at columns ``xs`` and ``depths`` (same order)."""
    n = len(nodes)
    ids = array("q", (nd.id for nd in nodes))
    index = {mid: i for i, mid in enumerate(ids)}
    links = marks.side_links
    parents = array("i", (index.get(nd.parent_id, -1) if nd.parent_id is not None
                          else index.get(links.get(nd.id, -1), -1) for nd in nodes))
    flags = _flags(ids, marks)
    child_start, child_list = _children(parents)
    sx = array("d", (x * COL_W for x in xs))
    sy = array("d", (d * ROW_H for d in depths))
    labels = {index[m]: tuple(v) for m, v in marks.labels.items() if m in index}
    return GraphModel(
        ids=ids, index=index, parents=parents, xs=sx, ys=sy, depths=array("i", depths),
        styles=bytes(style_of(nd.role, f) for nd, f in zip(nodes, flags, strict=True)),
        flags=flags, child_start=child_start, child_list=child_list,
        roots=array("i", (i for i in range(n) if parents[i] < 0)),
        previews=[_first_line(nd.preview) for nd in nodes],
        labels=labels,
        notes={index[m]: tuple(v) for m, v in marks.notes.items() if m in index},
        grid=_grid(sx, sy), bounds=_bounds(sx, sy),
        tip=index.get(marks.tip, -1) if marks.tip is not None else -1,
        tending=tending_by_node(marks, index),
        names=names_by_node(marks.branch_names, index),
        memos=names_by_node(marks.user_notes, index),
    )


STAR = "★"
"""Begins a branch name that marks a preferred child; drawn without the ``⎇``."""


def names_by_node(names: Mapping[int, str], index: Mapping[int, int]
                  ) -> dict[int, tuple[str, ...]]:
    """Branch names by node position, in message order (a turn node may hold several)."""
    out: dict[int, tuple[str, ...]] = {}
    for mid in sorted(names):
        i = index.get(mid)
        if i is not None:
            out[i] = (*out.get(i, ()), names[mid])
    return out


def _flags(ids: array[int], marks: GraphMarks) -> array[int]:
    single = {marks.tip: F_TIP, marks.context_start: F_CONTEXT_START,
              marks.clean_boundary: F_CLEAN_BOUNDARY}
    sets = ((marks.active, F_ACTIVE), (marks.rewinds, F_REWIND), (marks.forks, F_FORK),
            (marks.compactions, F_COMPACTION), (frozenset(marks.labels), F_CHECKPOINT),
            (frozenset(marks.side_links), F_SIDE))
    extra = marks.message_flags
    tend = tend_flags(marks)
    out = array("I", [0]) * len(ids)
    for i, mid in enumerate(ids):
        f = extra.get(mid, 0) | single.get(mid, 0) | tend.get(mid, 0)
        for members, bit in sets:
            if mid in members:
                f |= bit
        out[i] = f
    return out


def tend_flags(marks: GraphMarks) -> dict[int, int]:
    """The tending bits by message id: folded or deleted branches below, stale, merge ends."""
    out: dict[int, int] = {}
    for mid, (archived, deleted) in marks.folded.items():
        out[mid] = (F_ARCHIVED if archived else 0) | (F_DELETED if deleted else 0)
    for mid in marks.stale:
        out[mid] = out.get(mid, 0) | F_STALE
    for tip, msg in marks.merges:
        out[tip] = out.get(tip, 0) | F_MERGE
        out[msg] = out.get(msg, 0) | F_MERGE
    return out


def node_flags(marks: GraphMarks, tools: bool = True) -> dict[int, int]:
    """Flags of every message that has any, by message id (the turn view ORs them per node);
    ``tools=False`` leaves out the tool bits (a caller walks ``message_flags`` itself)."""
    out: dict[int, int] = dict(marks.message_flags) if tools else {}
    for mid, bits in tend_flags(marks).items():
        out[mid] = out.get(mid, 0) | bits
    for mid in marks.active:
        out[mid] = out.get(mid, 0) | F_ACTIVE
    for one, bit in ((marks.tip, F_TIP), (marks.context_start, F_CONTEXT_START),
                     (marks.clean_boundary, F_CLEAN_BOUNDARY)):
        if one is not None:
            out[one] = out.get(one, 0) | bit
    for members, bit in ((marks.rewinds, F_REWIND), (marks.forks, F_FORK),
                         (marks.compactions, F_COMPACTION), (marks.labels, F_CHECKPOINT)):
        for mid in members:
            out[mid] = out.get(mid, 0) | bit
    return out


def _children(parents: array[int]) -> tuple[array[int], array[int]]:
    n = len(parents)
    counts = [0] * (n + 1)
    for p in parents:
        if p >= 0:
            counts[p + 1] += 1
    for i in range(n):
        counts[i + 1] += counts[i]
    start = array("i", counts)
    fill = counts[:]
    child_list = array("i", [0]) * counts[n]
    for i, p in enumerate(parents):
        if p >= 0:
            child_list[fill[p]] = i
            fill[p] += 1
    return start, child_list


def _grid(xs: array[float], ys: array[float]) -> dict[tuple[int, int], array[int]]:
    grid: dict[tuple[int, int], array[int]] = {}
    cw, rh = COL_W * CELL_COLS, ROW_H * CELL_ROWS
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        key = (math.floor(x / cw), math.floor(y / rh))
        cell = grid.get(key)
        if cell is None:
            grid[key] = array("i", (i,))
        else:
            cell.append(i)
    return grid


def _bounds(xs: array[float], ys: array[float]) -> tuple[float, float, float, float]:
    if not xs:
        return (0.0, 0.0, 0.0, 0.0)
    return (min(xs) - BOX_W / 2, min(ys) - BOX_H / 2, max(xs) + BOX_W / 2, max(ys) + BOX_H / 2)


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line[:PREVIEW_CHARS]
