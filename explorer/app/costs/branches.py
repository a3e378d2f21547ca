"""Cost per branch, the shared prefix counted once and shown apart (C5).

Each answer is counted in exactly one place: a branch's own part (the messages only that
branch holds), the shared part (messages more than one branch goes through), or, for a
subagent whose call is not in the tree, the unattached part; so
``shared + Σ branches' own + unattached = total``. Each branch also says what it cost with
the shared messages on its path, as if it were the only one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from explorer.app.costs.report import CostReport
from explorer.app.costs.shape import chain
from explorer.app.costs.tally import Tally, summed


@dataclass
class BranchCost:
    leaf: int
    start: int  # the first message only this branch holds
    active: bool
    own: Tally
    with_shared: Tally
    subagents: list[int] = field(default_factory=list)  # roots rolled into its own messages


@dataclass
class BranchCosts:
    total: Tally
    shared: Tally
    segments: dict[int, Tally]  # shared chains by their first message
    shared_subagents: list[int]
    branches: list[BranchCost]
    unattached: Tally
    unattached_subagents: list[int]


def by_branch(report: CostReport) -> BranchCosts:
    shape = report.shape
    segments: dict[int, Tally] = {}
    own: dict[int, Tally] = {leaf: Tally() for leaf in shape.leaves}
    unattached = Tally()
    for mid, cost in report.answers.items():
        at = shape.attributed(mid)
        if at is None:
            unattached.add(cost)
        elif shape.shared(at):
            segments.setdefault(shape.segment[at], Tally()).add(cost)
        else:
            own[shape.leaf_of[at]].add(cost)
    tip_leaf = shape.leaf_of.get(report.tip) if report.tip is not None else None
    branches: list[BranchCost] = []
    for leaf in shape.leaves:
        start = shape.branch_start(leaf)
        above = shape.parent[start]
        on_path = chain(shape, shape.segment[above]) if above is not None else []
        with_shared = summed([own[leaf], *(segments[s] for s in on_path if s in segments)])
        branches.append(BranchCost(leaf, start, leaf == tip_leaf, own[leaf], with_shared))
    by_leaf = {b.leaf: b for b in branches}
    shared_subagents: list[int] = []
    orphans: list[int] = []
    for root, owner in shape.owner.items():
        if owner is None:
            orphans.append(root)
        elif shape.shared(owner):
            shared_subagents.append(root)
        else:
            by_leaf[shape.leaf_of[owner]].subagents.append(root)
    return BranchCosts(report.total(), summed(list(segments.values())), segments,
                       sorted(shared_subagents), branches, unattached, sorted(orphans))


def branch_json(report: CostReport, costs: BranchCosts) -> dict[str, Any]:
    sub = report.subagent_dict
    return {
        **report.head(), "by": "branch", "total": costs.total.to_dict(),
        "shared": {**costs.shared.to_dict(),
                   "segments": [{"from": head, **t.to_dict()}
                                for head, t in sorted(costs.segments.items())],
                   "subagents": [sub(r) for r in costs.shared_subagents]},
        "branches": [{"leaf": b.leaf, "start": b.start, "active": b.active,
                      "own": b.own.to_dict(), "with_shared": b.with_shared.to_dict(),
                      "subagents": [sub(r) for r in b.subagents]} for b in costs.branches],
        "unattached_subagents": {**costs.unattached.to_dict(),
                                 "subagents": [sub(r) for r in costs.unattached_subagents]},
    }
