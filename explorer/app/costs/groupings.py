"""Cost by model and by turn: the same answers as by branch, grouped otherwise (C5).

By model, each answer counts under the model that wrote it, subagents' under their own. By
turn, the turns are the turn view's (V1: every message in exactly one turn); a subagent's
answers are rolled into the turn holding the call that started it and listed beside it.
"""

from __future__ import annotations

from functools import partial
from typing import Any, cast

from explorer.app.costs.report import CostReport
from explorer.app.costs.tally import Tally
from explorer.store import Store
from explorer.store.turn_reads import read_previews, read_turn_source
from explorer.tree.turn_grouping import group_columns

NO_MODEL = "(no model named)"


def by_model(report: CostReport) -> dict[str, Any]:
    tallies: dict[str, Tally] = {}
    for cost in report.answers.values():
        tallies.setdefault(cost.model or NO_MODEL, Tally()).add(cost)
    rows = []
    for model, tally in sorted(tallies.items(), key=lambda kv: -(kv[1].usd or 0.0)):
        price = report.prices.lookup(None if model == NO_MODEL else model)
        rows.append({"model": model, "price": price.to_dict() if price else "no price",
                     **tally.to_dict()})
    return {**report.head(), "by": "model", "total": report.total().to_dict(), "models": rows}


def by_turn(report: CostReport, store: Store) -> dict[str, Any]:
    read = read_turn_source(store.reader, report.conversation_id)
    assert read.columns is not None
    tree = group_columns(read.columns, partial(read_previews, store.reader))
    shape = report.shape
    tallies: dict[int, Tally] = {}
    orphans = Tally()
    for mid, cost in report.answers.items():
        at = shape.attributed(mid)
        turn = tree.turn_of.get(at) if at is not None else None
        if turn is None:
            orphans.add(cost)
        else:
            tallies.setdefault(turn, Tally()).add(cost)
    beside: dict[int, list[int]] = {}
    for root, owner in shape.owner.items():
        turn = tree.turn_of.get(owner) if owner is not None else None
        beside.setdefault(-1 if turn is None else turn, []).append(root)
    rows = []
    for t in range(len(tree)):
        if tree.agent_of(t) is not None:
            continue  # a subagent's turn: rolled into the turn of its call
        head = cast(int, tree.head(t))
        words = tree.prompts[t] or tree.answers[t]
        rows.append({"turn": t, "head": head, "tail": tree.tail(t), "prompt": words,
                     "branch": "shared" if shape.shared(head) else shape.leaf_of[head],
                     **(tallies.get(t) or Tally()).to_dict(),
                     "subagents": [report.subagent_dict(r) for r in sorted(beside.get(t, []))]})
    return {**report.head(), "by": "turn", "total": report.total().to_dict(), "turns": rows,
            "unattached_subagents": {**orphans.to_dict(), "subagents": [
                report.subagent_dict(r) for r in sorted(beside.get(-1, []))]}}
