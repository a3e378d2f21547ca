"""The loss report use-case (L8): what a compaction of a conversation would discard, and pins.

The report is made from the very plan ``convo compact`` and the preview build (the same target,
rung and pins), so the fact sheet and pages it points into are the ones the next request
carries. The summary rung is reported without a model call: its request is built and the
transcript it hands the model is what the items are looked up in.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.compaction import planner
from explorer.compaction.context import CompactionPlan, expand_compacted
from explorer.compaction.loss_report import LossReport, loss_report
from explorer.compaction.summary import SummaryRequest
from explorer.compaction.target import Target
from explorer.store import Store, StoreError
from explorer.tree.model import Message

from .compacting import active_context


class _RequestOnly:
    """A summarizer that writes nothing: the report needs the request, not a model's answer."""

    def summarize(self, request: SummaryRequest) -> str:
        return ""


@dataclass(frozen=True)
class Loss:
    report: LossReport
    plan: CompactionPlan


def report(store: Store, conv_id: int, target: Target, rung: str | None = None) -> Loss:
    """The loss report of compacting ``conv_id`` for ``target`` up to ``rung``."""
    context = active_context(store, conv_id)
    if not context:
        raise StoreError(f"conversation {conv_id} is empty: there is nothing to compact")
    pins = store.pins(conv_id)
    summarizer = _RequestOnly() if rung == "summary" else None
    plan = planner.build_plan(context, target, rung=rung, summarizer=summarizer, pins=pins)
    return Loss(report_for_plan(context, plan, target, pins), plan)


def report_for_plan(context: list[Message], plan: CompactionPlan, target: Target,
                    pins: list[str]) -> LossReport:
    """The loss report of a plan already built from ``context`` (the preview's)."""
    original = expand_compacted(planner.redacted(context, target, []))
    geometry = target.geometry if target.vision else None
    result = loss_report(original, plan, geometry, pins)
    if not plan.rungs:
        result.notes.insert(0, "nothing to compact: the context fits the target as it is; "
                               "name a rung (--rung) to see what it would discard")
    elif plan.split is None and not result.entries:
        result.notes.insert(0, "nothing exact is discarded: no rung took text out")
    return result


def report_lines(result: LossReport, *, limit: int | None = None) -> list[str]:
    """The report as text: counts per kind first, then one line per item."""
    lines = [f"loss report ({result.rung}): {len(result.entries)} exact string(s) discarded",
             *[f"  {line}" for line in result.count_lines()]]
    lines += [f"note: {n}" for n in result.notes]
    shown = result.entries if limit is None else result.entries[:limit]
    for e in shown:
        where = e.destination
        if e.destination == "page":
            where = f"page {e.page} line {e.line}" + (
                " (read back)" if e.read_back else " (not surely read back)")
        if e.elided:
            where += " (elided)"
        pin = " [pinned]" if e.pinned else ""
        lines.append(f"  {e.item.kind:<8} {where:<34} {_short(e.item.text)}{pin}")
    if len(shown) < len(result.entries):
        lines.append(f"  … {len(result.entries) - len(shown)} more (--json lists every item)")
    lines += [f"pin {state}: {_short(text)}" for text, state in result.pins.items()]
    return lines


def _short(text: str, width: int = 120) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"
