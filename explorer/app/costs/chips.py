"""The graph's cost chips: what each branch cost on its own, and the active path in all (C5).

A branch's chip sits on the node it starts at (its first message no other branch holds);
the tip's says what the whole active path cost, the shared part included. Money where the
models have a price, tokens where none has.
"""

from __future__ import annotations

from explorer.app.costs.branches import by_branch
from explorer.app.costs.report import CostReport
from explorer.app.costs.tally import Tally


def short_cost(t: Tally) -> str:
    """``$0.042``, ``$1.27``, or ``12.3k tok`` when nothing on it has a price."""
    usd = t.usd
    if usd is not None and (usd > 0 or t.tokens == 0):
        return f"${usd:.3f}" if usd < 1 else f"${usd:,.2f}"
    tokens = t.tokens
    return f"{tokens / 1e6:.1f}M tok" if tokens >= 1e6 else (
        f"{tokens / 1e3:.1f}k tok" if tokens >= 1e3 else f"{tokens} tok")


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
