"""A conversation's costs, read once: every answer's cost and the tree it sits in (C5).

``cost_report`` is what the command line and the window call; the groupings (by branch, by
turn, by model) and a path's cost are sums over it, so they always add up to ``total``.
Reading a conversation's cost never reaches a model: no provider, no key, no network.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from explorer.app.costs.answers import answer_costs
from explorer.app.costs.prices import PriceTable, load_prices
from explorer.app.costs.shape import Shape, build_shape, owned_subagents
from explorer.app.costs.tally import AnswerCost, Tally
from explorer.store import Store, StoreError
from explorer.store.cost_reads import cost_rows
from explorer.store.turn_reads import read_subagents


@dataclass
class CostReport:
    conversation_id: int
    tip: int | None
    prices: PriceTable
    shape: Shape
    answers: dict[int, AnswerCost]
    _subagents: dict[int, Tally] | None = None

    def tally(self, messages: Iterable[int]) -> Tally:
        out = Tally()
        for mid in messages:
            cost = self.answers.get(mid)
            if cost is not None:
                out.add(cost)
        return out

    def total(self) -> Tally:
        return self.tally(self.shape.order)

    def subagent(self, root: int) -> Tally:
        """The transcript's own answers (a subagent it started is listed on its own)."""
        if self._subagents is None:
            self._subagents = {r: Tally() for r in self.shape.subagents}
            for mid, cost in self.answers.items():
                found = self._subagents.get(self.shape.root_of[mid])
                if found is not None:
                    found.add(cost)
        return self._subagents.get(root) or Tally()

    def subagent_dict(self, root: int) -> dict[str, Any]:
        """A subagent as listed beside the call that started it."""
        info = self.shape.subagents[root]
        return {"root": root, "name": info.name, "agent_type": info.agent_type,
                "call_message": info.call_message, "rolled_into": self.shape.owner.get(root),
                **self.subagent(root).to_dict()}

    def estimated(self) -> dict[str, list[int]]:
        """Which answers were estimated, wholly or in part."""
        out: dict[str, list[int]] = {"estimated": [], "partial": []}
        for cost in self.answers.values():
            if cost.how != "measured":
                out[cost.how].append(cost.id)
        return out

    def head(self) -> dict[str, Any]:
        return {"conversation": self.conversation_id, "prices": self.prices.about(),
                "answers_estimated": self.estimated()}


def cost_report(store: Store, conv_id: int, prices: PriceTable | None = None) -> CostReport:
    conv = store.conversation(conv_id, boundary=False)
    rows = {r.id: r for r in cost_rows(store.reader, conv_id)}
    subagents = {cast(int, root): info
                 for root, info in read_subagents(store.reader, conv_id).items()}
    shape = build_shape({mid: r.parent_id for mid, r in rows.items()}, subagents)
    table = prices if prices is not None else load_prices()
    answers = answer_costs(rows, shape.order, shape.parent, table)
    return CostReport(conv_id, conv.tip_id, table, shape, answers)


def path_cost(report: CostReport, store: Store, at: int) -> Tally:
    """What the path from the root to ``at`` cost, with the subagents its calls started."""
    if at not in report.shape.parent:
        raise StoreError(f"message {at} is not in conversation {report.conversation_id}")
    path = store.path_ids(at)
    out = report.tally(path)
    for root in owned_subagents(report.shape, set(path)):  # nested ones are rolled up too
        out.merge(report.subagent(root))
    return out
