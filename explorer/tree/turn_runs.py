"""Collapsing straight runs of turns into one "⋯ N turns" node (V1).

A turn is *plain* when nothing about it needs to be seen on its own: it is not a
root, not a branch point, not a tip (a leaf), starts no subagent, is not the
start of one, and holds no kept message (the active tip, a checkpoint, a rewind
or fork mark, or anything the person expanded). Maximal chains of plain turns of
at least ``min_run`` turns become one run node, so collapsing never hides a
branch point, a tip or a checkpoint.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterator
from dataclasses import dataclass, field

from explorer.tree.turn_view import Turn, TurnInput, TurnTree, group_turns

MIN_RUN = 3


@dataclass(slots=True)
class ViewNode:
    """What the turn view draws: one turn, or a run of several."""

    index: int
    turns: list[int]  # turn indices, in path order
    parent: int = -1  # view node index
    children: list[int] = field(default_factory=list)  # own children
    side: list[int] = field(default_factory=list)  # subagent starts hanging off this node

    @property
    def is_run(self) -> bool:
        return len(self.turns) > 1


@dataclass
class TurnProjection:
    tree: TurnTree
    nodes: list[ViewNode]  # parents before children
    node_of_turn: list[int]
    roots: list[int]  # view nodes of the conversation's own roots
    side_roots: list[int]  # subagents whose spawning call is not in the tree

    def turn(self, node: int) -> Turn:
        """The node's first turn (its only one unless it is a run)."""
        return self.tree.turns[self.nodes[node].turns[0]]

    def is_side(self, node: int) -> bool:
        return self.turn(node).is_side

    def messages(self, node: int) -> list[Hashable]:
        turns = self.tree.turns
        return [mid for t in self.nodes[node].turns for mid in turns[t].messages]

    def node_of(self, mid: Hashable) -> int:
        """The view node holding message ``mid``, or -1."""
        t = self.tree.turn_of.get(mid)
        return -1 if t is None else self.node_of_turn[t]

    def siblings(self, node: int) -> list[int]:
        """Own siblings: a subagent start has none, and is never anyone's."""
        if self.is_side(node):
            return [node]
        p = self.nodes[node].parent
        return self.roots if p < 0 else self.nodes[p].children


def project(
    messages: list[TurnInput], keep: Collection[Hashable] = (), min_run: int = MIN_RUN
) -> TurnProjection:
    """Group ``messages`` into turns and collapse their plain runs."""
    return collapse_runs(group_turns(messages), keep, min_run)


def dfs_turns(tree: TurnTree) -> Iterator[int]:
    """Every turn once, parents (and spawning turns) before their children and subagents."""
    stack = [*reversed(tree.side_roots), *reversed(tree.roots)]
    turns = tree.turns
    seen: set[int] = set()
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        yield t
        stack.extend(reversed(turns[t].side))
        stack.extend(reversed(turns[t].children))


def collapse_runs(
    tree: TurnTree, keep: Collection[Hashable] = (), min_run: int = MIN_RUN
) -> TurnProjection:
    kept = {tree.turn_of[m] for m in keep if m in tree.turn_of}
    turns = tree.turns
    order = list(dfs_turns(tree))

    def plain(t: int) -> bool:
        turn = turns[t]
        return (turn.parent >= 0 and not turn.is_side and len(turn.children) == 1
                and not turn.side and t not in kept)

    run_of: dict[int, list[int]] = {}
    for t in order:
        if not plain(t):
            continue
        p = turns[t].parent
        run = run_of.get(p) if plain(p) else None
        if run is None:
            run = []
        run.append(t)
        run_of[t] = run
    nodes: list[ViewNode] = []
    node_of_turn = [-1] * len(turns)
    for t in order:
        if node_of_turn[t] >= 0:
            continue
        run = run_of.get(t)
        members = run if run is not None and len(run) >= max(min_run, 2) else [t]
        node = ViewNode(len(nodes), list(members))
        for m in members:
            node_of_turn[m] = node.index
        nodes.append(node)
    return _link(tree, nodes, node_of_turn)


def _link(tree: TurnTree, nodes: list[ViewNode], node_of_turn: list[int]) -> TurnProjection:
    roots: list[int] = []
    side_roots: list[int] = []
    for node in nodes:
        first = tree.turns[node.turns[0]]
        if first.parent < 0:
            (side_roots if first.is_side else roots).append(node.index)
            continue
        node.parent = node_of_turn[first.parent]
        parent = nodes[node.parent]
        (parent.side if first.is_side else parent.children).append(node.index)
    return TurnProjection(tree, nodes, node_of_turn, roots, side_roots)
