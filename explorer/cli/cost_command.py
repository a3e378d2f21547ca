"""``convo cost``: tokens and money per branch, turn or model, from measured usage (C5).

It prints the sums ``explorer.app.costs`` works out; ``--json`` gives them whole, with the
ids of every answer that was estimated.
"""

from __future__ import annotations

import argparse
from typing import Any

from explorer.app.costs.branches import branch_json, by_branch
from explorer.app.costs.groupings import by_model, by_turn
from explorer.app.costs.report import cost_report
from explorer.app.costs.words import money
from explorer.cli.commands import Command, add_conv_arg, open_store
from explorer.cli.output import emit

_HEAD = f"{'':<34}{'input':>11}{'output':>10}{'cache read':>13}{'cache write':>13}{'cost':>12}"


def row(label: str, t: dict[str, Any]) -> str:
    marks = []
    if t["estimated_answers"]:
        marks.append(f"{len(t['estimated_answers'])} estimated")
    if t["unpriced_answers"] and t["cost_usd"] is not None:
        marks.append(f"{t['unpriced_answers']} without a price")
    note = f"  ({', '.join(marks)})" if marks else ""
    text = label if len(label) <= 33 else label[:32] + "…"
    return (f"{text:<34}{t['input_tokens']:>11,}{t['output_tokens']:>10,}"
            f"{t['cache_read_tokens']:>13,}{t['cache_write_tokens']:>13,}"
            f"{money(t['cost_usd']):>12}{note}")


def _subagent_rows(subs: list[dict[str, Any]]) -> list[str]:
    return [row(f"  ⤷ {s['name']}", s) for s in subs]


def branch_lines(data: dict[str, Any]) -> list[str]:
    lines = [_HEAD, row("total", data["total"]),
             row("shared (counted once)", data["shared"]),
             *_subagent_rows(data["shared"]["subagents"])]
    for b in data["branches"]:
        mark = " (active)" if b["active"] else ""
        lines.append(row(f"branch → {b['leaf']}{mark}", b["own"]))
        lines += _subagent_rows(b["subagents"])
        if data["shared"]["answers"]:
            lines.append(row("  with the shared prefix", b["with_shared"]))
    orphans = data["unattached_subagents"]
    if orphans["subagents"]:
        lines.append(row("subagents whose call is not here", orphans))
        lines += _subagent_rows(orphans["subagents"])
    return lines


def turn_lines(data: dict[str, Any]) -> list[str]:
    lines = [_HEAD, row("total", data["total"])]
    for t in data["turns"]:
        where = "shared" if t["branch"] == "shared" else f"→ {t['branch']}"
        lines.append(row(f"#{t['head']} {where}: {t['prompt']}", t))
        lines += _subagent_rows(t["subagents"])
    if data["unattached_subagents"]["subagents"]:
        lines.append(row("subagents whose call is not here", data["unattached_subagents"]))
    return lines


def model_lines(data: dict[str, Any]) -> list[str]:
    lines = [_HEAD, row("total", data["total"])]
    lines += [row(m["model"] + ("" if m["price"] != "no price" else " (no price)"), m)
              for m in data["models"]]
    return lines


def notes(data: dict[str, Any]) -> list[str]:
    prices = data["prices"]
    out = [f"prices of {prices['date']} (resources/prices.json"
           + (f"; settings.json sets {', '.join(prices['settings_override'])}"
              if prices["settings_override"] else "") + ")", *prices["notes"]]
    est = data["answers_estimated"]
    for kind, why in (("estimated", "no usage in the file"), ("partial", "usage lacked a count")):
        ids = sorted(est[kind])
        if ids:
            shown = ", ".join(map(str, ids[:12])) + (f" and {len(ids) - 12} more"
                                                     if len(ids) > 12 else "")
            out.append(f"{len(ids)} answer(s) estimated ({why}): {shown}")
    if data["total"]["no_price"]:
        out.append("no price for " + ", ".join(data["total"]["no_price"])
                   + ": their tokens are counted, not their money (add them under \"prices\" "
                     "in settings.json)")
    return out


def run_cost(args: argparse.Namespace) -> int:
    with open_store(args) as s:
        report = cost_report(s, args.conversation)
        if args.by == "turn":
            data = by_turn(report, s)
            lines = turn_lines(data)
        elif args.by == "model":
            data = by_model(report)
            lines = model_lines(data)
        else:
            data = branch_json(report, by_branch(report))
            lines = branch_lines(data)
        emit(args, data, [f"conversation {args.conversation}: cost by {args.by}", *lines,
                          *notes(data)])
    return 0


def _cost_args(p: argparse.ArgumentParser) -> None:
    add_conv_arg(p)
    p.add_argument("--by", choices=("branch", "turn", "model"), default="branch",
                   help="group by branch (default; the shared prefix counted once), by turn, "
                        "or by model")


COMMANDS: list[Command] = [
    Command("cost", "tokens and money per branch, turn or model (shared prefix counted once)",
            _cost_args, run_cost, json=True),
]
