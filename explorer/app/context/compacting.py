"""The compaction use-cases ``/compact``, ``/shake`` and ``/context`` share with the app.

The plan holds the very messages and page bytes a request would carry, so the
preview written here, the record stored on the tip and the request are the
same bytes (SPEC §5).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from explorer.app.context import prompt_cache
from explorer.app.sharing import safe_write
from explorer.app.views.meta_records import sent_to_models
from explorer.compaction import planner
from explorer.compaction.context import CompactionPlan, ContextUsage
from explorer.compaction.ladder import RUNGS
from explorer.compaction.summary import Summarizer
from explorer.compaction.target import PROVIDER_KINDS, Target
from explorer.providers.encoding import encode_request
from explorer.store import Store, StoreError
from explorer.tree.model import Message

__all__ = ["PROVIDER_KINDS", "RUNGS", "Target"]


def active_context(store: Store, conv_id: int) -> list[Message]:
    """The context the next prompt continues: from the context start (after a trim) to the
    tip, or to the last clean boundary when the tip is mid-turn (P3), as ``send`` sees it."""
    conv = store.conversation(conv_id)
    if conv.tip_id is None:
        return []
    boundary = store.clean_boundary(conv_id)
    path = store.path(conv_id, boundary if boundary is not None else conv.tip_id)
    return from_context_start(path, conv.context_start_id)


def from_context_start(path: list[Message], start: object) -> list[Message]:
    """The path from the conversation's context start, when the start is on it (P4),
    without the records an agent kept for itself (they never reach a model)."""
    ids = [m.id for m in path]
    kept = path[ids.index(start):] if start in ids else path
    return [m for m in kept if sent_to_models(m)]


def plan(
    store: Store, conv_id: int, target: Target, rung: str | None = None,
    summarizer: Summarizer | None = None,
) -> CompactionPlan:
    """Run the ladder (or up to ``rung``) on the active context; nothing is written.

    The summary rung needs ``summarizer`` (a provider with a key); without one
    the ladder stops at snapshots, which are always available (L6). The conversation's pins
    ride on the fact sheet (L8).
    """
    return plan_of(active_context(store, conv_id), store.pins(conv_id), conv_id, target, rung,
                   summarizer)


def plan_of(path: list[Message], pins: list[str], conv_id: int, target: Target,
            rung: str | None = None, summarizer: Summarizer | None = None) -> CompactionPlan:
    """``plan`` of a context and pins already read (the preview lists their losses too)."""
    if not path:
        raise StoreError(f"conversation {conv_id} is empty")
    return planner.build_plan(path, target, rung=rung, summarizer=summarizer, pins=pins)


def plan_shake(store: Store, conv_id: int, target: Target) -> CompactionPlan:
    return planner.shake_plan(active_context(store, conv_id), target)


def usage(store: Store, conv_id: int, target: Target) -> ContextUsage:
    return planner.usage(active_context(store, conv_id), target)


def request_body(plan: CompactionPlan, target: Target, notes: list[str]) -> dict[str, Any]:
    """The literal body ``send`` would POST for this plan (before the new prompt)."""
    return encode_request(plan.messages(), target, notes=notes)


def write_preview(plan: CompactionPlan, target: Target, folder: Path,
                  db_path: Path | None = None) -> list[Path]:
    """Write the exact PNG pages, the request JSON and the plan record; return the files.

    Each file is written beside its target and renamed into place; the open
    database (``db_path``) and its companions are never written over.
    """
    if folder.exists() and not folder.is_dir():
        raise safe_write.WriteRefused(f"refusing to write into {folder}: it is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for i, page in enumerate(plan.pages, start=1):
        out = folder / f"page-{i:03d}.png"
        safe_write.write_bytes(out, page.png, db_path)
        written.append(out)
    notes: list[str] = []
    body = request_body(plan, target, notes)
    record = {**plan.to_record(), "target": target.record()}
    cache = prompt_cache.outlook(plan, target)
    if cache is not None:
        record["cache"] = cache.to_dict()
    for name, data in (("request.json", body), ("plan.json", record), ("notes.json", notes)):
        out = folder / name
        safe_write.write_text(out, json.dumps(data, ensure_ascii=False, indent=2), db_path)
        written.append(out)
    return written


APPLIED = "applied"  # a record made by Apply / ``convo compact``: the next send carries it


def record(store: Store, conv_id: int, plan: CompactionPlan, target: Target) -> int:
    """Store the plan's record on the point the next prompt continues (Apply).

    The record names the target and the rung asked for, so the next ``send`` with the same
    target builds this very context (X1).
    """
    if not plan.path:
        raise StoreError(f"conversation {conv_id} is empty")
    at = plan.path[-1].id
    if not isinstance(at, int):
        raise StoreError("the plan does not end at a stored message")
    kind = plan.rungs[-1] if plan.rungs else "none"
    params = {**target.record(), APPLIED: True, "rung": plan.parameters.get("force")}
    return store.add_compaction(conv_id, at, kind, params, plan.to_record(), plan.summary or "")


def applied_rung(store: Store, conv_id: int, at: int | None, target: Target) -> str | None:
    """The rung an applied compaction on ``at`` asked for, when it was made for ``target``."""
    if at is None:
        return None
    for rec in reversed(store.compactions(conv_id)):
        params = rec["params"]
        if rec["message_id"] == at and params.get(APPLIED) and target.same_context(params):
            rung = params.get("rung")
            return rung if isinstance(rung, str) else None
    return None


def cache_lines(plan: CompactionPlan, target: Target) -> list[str]:
    """The prompt-cache outlook of the next request, when the provider has one to predict."""
    cache = prompt_cache.outlook(plan, target)
    if cache is None:
        return []
    return [f"  prompt cache: {cache.read:,} tokens expected from the cache (at "
            f"{prompt_cache.READ_PRICE:g}x), {cache.written:,} written (at "
            f"{prompt_cache.WRITE_PRICE:g}x), {cache.uncached:,} uncached: about "
            f"{cache.cost_in_input_tokens:,.0f} input tokens' worth"]


BASIS_TEXT = {"measured": "measured", "documented": "the provider's documentation",
              "assumed": "assumed where the documentation is silent"}


def page_price(plan: CompactionPlan, target: Target) -> dict[str, Any]:
    """Which rule priced the pages (with its source and basis) and what a page costs by it."""
    g = target.geometry
    w, h = (plan.pages[0].width, plan.pages[0].height) if plan.pages else (
        g.page_width, g.page_height)
    est = plan.estimator
    price = {**target.images.to_dict(), "page": [w, h], "tokens": est.image_price(w, h),
             "rule_tokens": est.image_tokens(w, h)}
    if est.image_measured:  # the provider's usage measured it: preferred over the rule
        price.update(basis="usage", image_factor=round(est.image_factor, 4),
                     image_observations=est.image_observations)
    return price


def price_lines(plan: CompactionPlan, target: Target) -> list[str]:
    """The page price as text, shown beside every preview (window and command line)."""
    price = page_price(plan, target)
    w, h = price["page"]
    where = f"{price['tokens']:,} tokens a {w}×{h} page at {target.kind} {target.model}"
    if price["basis"] == "usage":
        return [f"  page price: measured by the provider's usage over "
                f"{price['image_observations']} answer(s): {where} (the rule, {price['name']}, "
                f"says {price['rule_tokens']:,}; {price['source']})"]
    return [f"  page price: {price['name']} ({BASIS_TEXT[price['basis']]}: {price['source']}); "
            f"{where}"]


def measured_cache_lines(store: Store, conv_id: int) -> list[str]:
    """What the provider read from and wrote to its cache for the last answer."""
    last = prompt_cache.last_measured(active_context(store, conv_id))
    if last is None:
        return []
    return [f"last answer (message {last['message']}): {last['read']:,} prompt tokens read "
            f"from the provider's cache, {last['written']:,} written"]


def usage_lines(use: ContextUsage) -> list[str]:
    """``/context`` as text: each part of the window, estimated and measured."""
    data = use.to_dict()
    lines = [f"window {use.window or 0:,} tokens ({use.family} estimate, factor {use.factor:.2f})"]
    lines += [f"  {name:<13}{tokens:>10,}" for name, tokens in use.parts.items()]
    lines.append(f"  {'reserve':<13}{use.output_reserve:>10,}  (for the answer)")
    lines.append(f"  {'free':<13}{data.get('free') or 0:>10,}")
    measured = f"{use.measured_total:,}" if use.measured_total is not None else "none"
    lines.append(f"estimated {use.estimated_total:,}; measured {measured}")
    return lines


def plan_lines(plan: CompactionPlan) -> list[str]:
    """``/compact`` and ``/shake`` as text: rungs, savings, head/middle/tail, cost per part."""
    rec = plan.to_record()
    tokens = rec["tokens"]
    lines = [f"rungs: {', '.join(plan.rungs) or 'none needed'}; "
             f"{tokens['before']:,} → {tokens['after']:,} tokens "
             + (f"({'fits' if plan.fits else 'does NOT fit'} the target {plan.target:,})"
                if plan.target else "(free rungs only)")]
    lines += [f"  {rung}: saved {saved:,} tokens" for rung, saved in plan.savings.items()]
    if "split" in rec:
        split = rec["split"]
        lines.append(f"  head {split.get('head_tokens', 0):,} · middle "
                     f"{split.get('middle_tokens', 0):,} · tail {split.get('tail_tokens', 0):,}"
                     " tokens")
        lines.append(f"  {len(plan.pages)} snapshot page(s), "
                     f"{sum(p['tokens'] for p in rec['pages']):,} image tokens")
    lines += [f"  {k}: {v:,}" for k, v in tokens.items() if k not in ("before", "after")]
    lines += density_lines(plan)
    lines += [f"note: {n}" for n in plan.notes]
    return lines


def density_lines(plan: CompactionPlan) -> list[str]:
    """How many characters the pages carry per token, without and with the fact sheet."""
    d = plan.density()
    if d is None:
        return []
    return [f"  density: {d['chars']:,.0f} chars on {len(plan.pages)} page(s) = "
            f"{d['chars_per_token']:.1f} chars/token; {d['chars_per_token_with_facts']:.1f} "
            f"with the {d['fact_tokens']:,.0f}-token fact sheet"]
