"""The graph's cost chips: what each branch cost on its own, and the active path in all (C5).

A branch's chip sits on the node it starts at (its first message no other branch holds);
the tip's says what the whole active path cost, the shared part included. Money where the
models have a price, tokens where none has.
"""

from __future__ import annotations

from explorer.app.costs.branches import by_branch
from explorer.app.costs.report import CostReport
from explorer.app.costs.words import short_cost


def cost_chips(report: CostReport) -> dict[int, str]:
    """Chip text by message id: each branch's own cost where the tree branches, and the
    active path's cost at the tip."""
    costs = by_branch(report)
    out: dict[int, str] = {}
    if len(costs.branches) > 1:
        for b in costs.branches:
            if b.own.answers:
                out[b.start] = short_cost(b.own)
    active = next((b for b in costs.branches if b.active), None)
    if report.tip is not None and active is not None:
        out[report.tip] = f"path {short_cost(active.with_shared)}"
    return out
