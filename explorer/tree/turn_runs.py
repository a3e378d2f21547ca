"""Collapsing straight runs of turns into one "⋯ N turns" node (V1).

A turn is *plain* when nothing about it needs to be seen on its own: it is not a
root, not a branch point, not a tip (a leaf), starts no subagent, is not the
start of one, and holds no kept message (the active tip, a checkpoint, a rewind
or fork mark, or anything the person expanded). Maximal chains of plain turns of
at least ``min_run`` turns become one run node, so collapsing never hides a
branch point, a tip or a checkpoint.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Hashable, Iterator, Sequence
from dataclasses import dataclass, field

from explorer.tree.columns import Lazy, csr
from explorer.tree.turn_grouping import group_turns
from explorer.tree.turn_view import Turn, TurnInput, TurnTree

MIN_RUN = 3


@dataclass(slots=True)
class ViewNode:
    """What the turn view draws: one turn, or a run of several (made when asked)."""

    index: int
    turns: list[int]  # turn indices, in path order
    parent: int = -1  # view node index
    children: list[int] = field(default_factory=list)  # own children
    side: list[int] = field(default_factory=list)  # subagent starts hanging off this node

    @property
    def is_run(self) -> bool:
        return len(self.turns) > 1


class TurnProjection:
    """The view's nodes in columns: node ``i`` holds turns
    ``turn_items[turn_starts[i]:turn_starts[i + 1]]``; parents come before children."""

    def __init__(self, tree: TurnTree, turn_starts: array[int], turn_items: array[int],
                 node_of_turn: array[int]) -> None:
        self.tree = tree
        self.turn_starts, self.turn_items = turn_starts, turn_items
        self.node_of_turn = node_of_turn
        n = len(turn_starts) - 1
        self.parent = array("i", bytes(4 * n))
        self.roots: list[int] = []  # view nodes of the conversation's own roots
        self.side_roots: list[int] = []  # subagents whose spawning call is not in the tree
        sides = tree.subagent  # first turns of subagent transcripts: a few, looked up by key
        side_nodes: list[int] = []
        for i in range(n):
            first = turn_items[turn_starts[i]]
            above = tree.parent[first]
            self.parent[i] = node_of_turn[above] if above >= 0 else -1
            if first in sides:
                side_nodes.append(i)
            if above < 0:
                (self.side_roots if first in sides else self.roots).append(i)
        # Own children and subagents apart; the side nodes are few, so each split is a copy
        # and a handful of writes rather than a test per node.
        own, side = array("i", self.parent), array("i", [-1]) * n
        for i in side_nodes:
            own[i], side[i] = -1, self.parent[i]
        self.child_starts, self.child_items = csr(own)
        self.side_starts, self.side_items = csr(side)

    @property
    def nodes(self) -> Lazy[ViewNode]:
        """``projection.nodes[i]``: a view of node ``i`` made when asked, never stored."""
        return Lazy(len(self.parent), self._node)

    def _node(self, i: int) -> ViewNode:
        return ViewNode(i, list(self.node_turns(i)), self.parent[i], list(self.children(i)),
                        list(self.side(i)))

    def __len__(self) -> int:
        return len(self.parent)

    def node_turns(self, node: int) -> Sequence[int]:
        return self.turn_items[self.turn_starts[node]:self.turn_starts[node + 1]]

    def first_turn(self, node: int) -> int:
        return self.turn_items[self.turn_starts[node]]

    def is_run(self, node: int) -> bool:
        return self.turn_starts[node + 1] - self.turn_starts[node] > 1

    def turn_count(self, node: int) -> int:
        return self.turn_starts[node + 1] - self.turn_starts[node]

    def children(self, node: int) -> Sequence[int]:
        return self.child_items[self.child_starts[node]:self.child_starts[node + 1]]

    def side(self, node: int) -> Sequence[int]:
        return self.side_items[self.side_starts[node]:self.side_starts[node + 1]]

    def turn(self, node: int) -> Turn:
        """The node's first turn (its only one unless it is a run)."""
        return self.tree.turns[self.first_turn(node)]

    def is_side(self, node: int) -> bool:
        return self.tree.is_side(self.first_turn(node))

    def messages(self, node: int) -> list[Hashable]:
        tree = self.tree
        return [mid for t in self.node_turns(node) for mid in tree.message_ids(t)]

    def message_count(self, node: int) -> int:
        tree = self.tree
        return sum(tree.size(t) for t in self.node_turns(node))

    def head(self, node: int) -> Hashable:
        return self.tree.head(self.first_turn(node))

    def tail(self, node: int) -> Hashable:
        return self.tree.tail(self.turn_items[self.turn_starts[node + 1] - 1])

    def node_of(self, mid: Hashable) -> int:
        """The view node holding message ``mid``, or -1."""
        t = self.tree.turn_of.get(mid)
        return -1 if t is None else self.node_of_turn[t]

    def siblings(self, node: int) -> list[int]:
        """Own siblings: a subagent start has none, and is never anyone's."""
        if self.is_side(node):
            return [node]
        p = self.parent[node]
        return self.roots if p < 0 else list(self.children(p))

    def nbytes(self) -> int:
        """Bytes the node columns hold (the tree's are counted by the tree)."""
        arrays = [self.turn_starts, self.turn_items, self.node_of_turn, self.parent,
                  self.child_starts, self.child_items, self.side_starts, self.side_items]
        return sum(a.itemsize * len(a) for a in arrays)


def project(
    messages: list[TurnInput], keep: Collection[Hashable] = (), min_run: int = MIN_RUN
) -> TurnProjection:
    """Group ``messages`` into turns and collapse their plain runs."""
    return collapse_runs(group_turns(messages), keep, min_run)


def dfs_turns(tree: TurnTree) -> Iterator[int]:
    """Every turn once, parents (and spawning turns) before their children and subagents."""
    stack = [*reversed(tree.side_roots), *reversed(tree.roots)]
    seen = bytearray(len(tree))
    while stack:
        t = stack.pop()
        if seen[t]:
            continue
        seen[t] = 1
        yield t
        stack.extend(reversed(tree.side(t)))
        stack.extend(reversed(tree.children(t)))


def collapse_runs(
    tree: TurnTree, keep: Collection[Hashable] = (), min_run: int = MIN_RUN
) -> TurnProjection:
    """Fold each maximal chain of plain turns of at least ``min_run`` into one node."""
    kept = {tree.turn_of[m] for m in keep if m in tree.turn_of}
    child_starts, side_starts, parent = tree.child_starts, tree.side_starts, tree.parent

    def plain(t: int) -> bool:
        return (parent[t] >= 0 and not tree.is_side(t)
                and child_starts[t + 1] - child_starts[t] == 1
                and side_starts[t + 1] == side_starts[t] and t not in kept)

    shortest = max(min_run, 2)
    node_of_turn = array("i", [-1]) * len(tree)
    turn_starts, turn_items = array("i", [0]), array("i")
    for t in dfs_turns(tree):
        if node_of_turn[t] >= 0:
            continue
        chain = [t]
        if plain(t):  # the head of a run (its parent is not plain, or it would be taken)
            c = tree.child_items[child_starts[t]]
            while plain(c):
                chain.append(c)
                c = tree.child_items[child_starts[c]]
        members = chain if len(chain) >= shortest else chain[:1]
        node = len(turn_starts) - 1
        for m in members:
            node_of_turn[m] = node
            turn_items.append(m)
        turn_starts.append(len(turn_items))
    return TurnProjection(tree, turn_starts, turn_items, node_of_turn)
