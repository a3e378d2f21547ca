"""Each answer's cost: its measured usage, or an estimate where the file has none (C5).

An answer without usage is estimated as one request: its input is everything on its path
before it (uncached, since nothing says what the cache held), its output its own size. Some
agents split one response into several messages and put the usage on one of them (Codex puts
it on the last): a run of consecutive answers with usage anywhere in it is one measured call,
and its other messages add nothing. Usage that lacks a count (input without output) keeps
what it has and estimates the rest, marked "partial".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from explorer.app.costs.prices import PriceTable
from explorer.app.costs.tally import AnswerCost
from explorer.compaction.estimate import UNKNOWN_IMAGE_SIDE, Estimator, Family
from explorer.store.cost_reads import CostRow


def family_of(model: str | None, provider: str | None) -> Family:
    """The tokenizer family an estimate of ``model``'s tokens uses."""
    if provider in ("anthropic", "openai", "gemini"):
        return provider  # type: ignore[return-value]
    name = (model or "").lower()
    if "claude" in name:
        return "anthropic"
    if "gemini" in name:
        return "gemini"
    if name.startswith(("gpt", "o1", "o3", "o4", "codex")):
        return "openai"
    return "generic"


def row_tokens(row: CostRow, est: Estimator) -> int:
    """The estimated tokens of one message as part of a request."""
    r = est.rules
    raw = (r.message_overhead + est.units_tokens(*row.units) + row.text_parts * r.part_overhead
           + row.tool_uses * r.tool_use_overhead + row.tool_results * r.tool_result_overhead)
    images = sum(r.part_overhead + est.image_price(w or UNKNOWN_IMAGE_SIDE,
                                                   h or UNKNOWN_IMAGE_SIDE)
                 for w, h in row.images)
    return est.correct(raw) + images


def answer_costs(rows: Mapping[int, CostRow], order: Sequence[int],
                 parents: Mapping[int, int | None], prices: PriceTable) -> dict[int, AnswerCost]:
    """Every answer's cost; ``order`` lists the messages parents first (a depth-first walk)
    and ``parents`` their parents as walked (a cycle cut)."""
    estimators: dict[Family, Estimator] = {}
    before: dict[int, int] = {}  # tokens on the path up to and including the message
    head: dict[int, int] = {}  # the first answer of a run of consecutive answers
    measured_runs: set[int] = set()
    for mid in order:
        row = rows[mid]
        up = parents[mid]
        parent = rows[up] if up is not None else None
        price = prices.lookup(row.model)
        fam = family_of(row.model, price.provider if price else None)
        est = estimators.setdefault(fam, Estimator(family=fam))
        before[mid] = (before[parent.id] if parent else 0) + row_tokens(row, est)
        if row.role == "assistant":
            head[mid] = head[parent.id] if parent and parent.role == "assistant" else mid
            if row.usage is not None:
                measured_runs.add(head[mid])
    out: dict[int, AnswerCost] = {}
    for mid in order:
        row = rows[mid]
        if row.role != "assistant":
            continue
        up = parents[mid]
        context = before[up] if up is not None else 0
        own = before[mid] - context
        cost = _cost(row, context if head[mid] == mid else 0, own,
                     head[mid] in measured_runs, prices)
        if cost is not None:
            out[mid] = cost
    return out


def _cost(row: CostRow, context: int, own: int, run_measured: bool,
          prices: PriceTable) -> AnswerCost | None:
    u = row.usage
    if u is None and run_measured:
        return None  # its tokens are in the usage another message of the same call carries
    if u is None:
        counts, how = (context, own, 0, 0), "estimated"
    else:
        read, write = u.cache_read_tokens or 0, u.cache_write_tokens or 0
        given = (u.input_tokens, u.output_tokens)
        counts = (u.input_tokens if u.input_tokens is not None else max(0, context - read - write),
                  u.output_tokens if u.output_tokens is not None else own, read, write)
        how = "measured" if None not in given else "partial"
    price = prices.lookup(row.model)
    usd = price.usd(*counts) if price is not None else None
    return AnswerCost(row.id, row.model, *counts, usd=usd, how=how)
