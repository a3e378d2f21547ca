"""The conversation's shape as costing needs it: a parents-first order, which messages are a
subagent's, the main tree's branches and what of it more than one branch shares.

A branch is the path from a root to a leaf of the conversation's own tree (subagent
transcripts are not branches: each is rolled into the message holding the call that started
it). A message is *shared* when more than one leaf lies below it; the others belong to exactly
one branch, so branches plus the shared messages cover the tree once (C5).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from explorer.store.turn_reads import SubagentInfo


@dataclass
class Shape:
    order: list[int]  # every message, parents first (a depth-first walk)
    parent: dict[int, int | None]  # as walked: a parent outside the walk, or a cycle, is cut
    root_of: dict[int, int]
    subagents: dict[int, SubagentInfo]  # by the root of the transcript
    owner: dict[int, int | None] = field(default_factory=dict)
    """Each subagent root: the main-tree message its cost is rolled into (None: its call is
    not in the tree)."""
    leaves: list[int] = field(default_factory=list)  # the main tree's leaves, walk order
    leaf_of: dict[int, int] = field(default_factory=dict)  # unshared main message → its leaf
    segment: dict[int, int] = field(default_factory=dict)  # main message → its chain's head
    segment_parent: dict[int, int | None] = field(default_factory=dict)

    def in_subagent(self, mid: int) -> bool:
        return self.root_of[mid] in self.subagents

    def attributed(self, mid: int) -> int | None:
        """The main-tree message whose cost holds ``mid``'s (None: an orphan subagent's)."""
        return self.owner.get(self.root_of[mid]) if self.in_subagent(mid) else mid

    def shared(self, mid: int) -> bool:
        return mid not in self.leaf_of

    def branch_start(self, leaf: int) -> int:
        """The first message only this branch holds."""
        at = leaf
        while (up := self.parent[at]) is not None and up in self.leaf_of:
            at = up
        return at


def build_shape(parents: Mapping[int, int | None],
                subagents: Mapping[int, SubagentInfo]) -> Shape:
    order, parent, root_of = _walk(parents)
    shape = Shape(order, parent, root_of, {r: s for r, s in subagents.items() if r in parent})
    shape.owner = {r: _owner(shape, r) for r in shape.subagents}
    _branches(shape)
    return shape


def _walk(parents: Mapping[int, int | None]
          ) -> tuple[list[int], dict[int, int | None], dict[int, int]]:
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    for mid in sorted(parents):
        p = parents[mid]
        if p is None or p not in parents:
            roots.append(mid)
        else:
            children.setdefault(p, []).append(mid)
    order: list[int] = []
    parent: dict[int, int | None] = {}
    root_of: dict[int, int] = {}

    def visit(start: int) -> None:
        parent[start] = None
        stack = [start]
        while stack:
            mid = stack.pop()
            order.append(mid)
            up = parent[mid]
            root_of[mid] = root_of[up] if up is not None else mid
            for kid in reversed(children.get(mid, ())):
                if kid not in parent:
                    parent[kid] = mid
                    stack.append(kid)

    for r in roots:
        visit(r)
    for mid in sorted(parents):  # a parent cycle: cut at its first message
        if mid not in parent:
            visit(mid)
    return order, parent, root_of


def _owner(shape: Shape, root: int) -> int | None:
    seen: set[int] = set()
    while root in shape.subagents and root not in seen:
        seen.add(root)
        call = shape.subagents[root].call_message
        if call is None or call not in shape.parent:
            return None
        root = shape.root_of[call]
        if root not in shape.subagents:
            return call
    return None


def _branches(shape: Shape) -> None:
    main = [m for m in shape.order if not shape.in_subagent(m)]
    kids: dict[int, list[int]] = {}
    for m in main:
        p = shape.parent[m]
        if p is not None:
            kids.setdefault(p, []).append(m)
    leaf_count: dict[int, int] = {}
    for m in reversed(main):  # children before their parent
        below = kids.get(m, ())
        leaf_count[m] = sum(leaf_count[k] for k in below) if below else 1
        if not below:
            shape.leaves.append(m)
            shape.leaf_of[m] = m
        elif leaf_count[m] == 1:
            shape.leaf_of[m] = shape.leaf_of[below[0]]
    shape.leaves.reverse()
    for m in main:
        p = shape.parent[m]
        head = m if p is None or len(kids[p]) != 1 else shape.segment[p]
        shape.segment[m] = head
        if head == m:
            shape.segment_parent[m] = shape.segment[p] if p is not None else None


def chain(shape: Shape, segment: int | None) -> list[int]:
    """The segment heads from ``segment`` up to the root."""
    out: list[int] = []
    while segment is not None:
        out.append(segment)
        segment = shape.segment_parent[segment]
    return out


def owned_subagents(shape: Shape, messages: Collection[int]) -> list[int]:
    """The subagent roots rolled into any of ``messages``."""
    return [r for r, owner in shape.owner.items() if owner is not None and owner in messages]
