"""The compaction use-cases ``/compact``, ``/shake`` and ``/context`` share with the app.

The plan holds the very messages and page bytes a request would carry, so the
preview written here, the record stored on the tip and the request are the
same bytes (SPEC §5).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from explorer.app import safe_write
from explorer.compaction.context import CompactionPlan, ContextUsage, context_usage
from explorer.compaction.estimate import Estimator, Family
from explorer.compaction.image_cost import page_cost
from explorer.compaction.ladder import DEFAULT_OUTPUT_RESERVE, Rung, run_ladder, shake
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.snapshot_render import render_snapshot
from explorer.compaction.split import PageLike
from explorer.compaction.summary import Summarizer
from explorer.formats.exporters.requests import anthropic_body, openai_body
from explorer.store import Store
from explorer.tree.model import Message

Provider = Literal["anthropic", "openai", "gemini"]
PROVIDERS: tuple[str, ...] = ("anthropic", "openai", "gemini")
DEFAULT_WINDOWS = {"anthropic": 200_000, "openai": 128_000, "gemini": 1_000_000}
RUNGS: tuple[str, ...] = ("elide", "images", "snapshot", "summary")


@dataclass(frozen=True)
class Shape:
    """Who the context is for: provider family, model, window and snapshot tier."""

    provider: str = "anthropic"
    model: str | None = None
    window: int | None = None
    tier: str = "dense"

    @property
    def budget(self) -> int:
        return self.window or DEFAULT_WINDOWS.get(self.provider, 128_000)


def preferred_shape() -> Shape:
    """The provider, model, window and tier the person chose in the settings."""
    from explorer.app.preferences import load_app_prefs
    from explorer.providers.settings import load_settings

    settings = load_settings()
    kind = settings.provider
    chosen = settings.for_provider(kind)
    provider = "openai" if kind == "openai-compatible" else kind
    return Shape(provider, chosen.model, chosen.window, load_app_prefs().tier(kind))


def active_context(store: Store, conv_id: int) -> list[Message]:
    """The active path from where the context starts (after a trim) to the tip."""
    path = store.path(conv_id)
    start = store.conversation(conv_id).context_start_id
    ids = [m.id for m in path]
    return path[ids.index(start):] if start in ids else path


def estimator_for(shape: Shape, path: Sequence[Message]) -> Estimator:
    """An estimator for the provider, corrected by the usage the path carries."""
    family: Family = shape.provider if shape.provider in PROVIDERS else "generic"  # type: ignore[assignment]
    geometry = page_geometry(_page_provider(shape), shape.model, shape.tier)
    est = Estimator(family, image_tokens=lambda w, h: page_cost(
        geometry.provider, geometry.model, w, h))
    est.learn_from_path(path)
    return est


def _page_provider(shape: Shape) -> str:
    return shape.provider if shape.provider in PROVIDERS else "openai"


def renderer_for(shape: Shape) -> Any:
    geometry = page_geometry(_page_provider(shape), shape.model, shape.tier)

    def render(middle: Sequence[Message]) -> Sequence[PageLike]:
        return render_snapshot(middle, geometry).pages

    return render


def plan(
    store: Store, conv_id: int, shape: Shape, rung: str | None = None,
    summarizer: Summarizer | None = None,
) -> CompactionPlan:
    """Run the ladder (or up to ``rung``) on the active context; nothing is written.

    The summary rung needs ``summarizer`` (a provider with a key); without one
    the ladder stops at snapshots, which are always available (L6).
    """
    path = active_context(store, conv_id)
    if not path:
        raise ValueError(f"conversation {conv_id} is empty")
    if rung is not None and rung not in RUNGS:
        raise ValueError(f"unknown rung {rung!r} (known: {', '.join(RUNGS)})")
    forced: Rung | None = rung  # type: ignore[assignment]
    return run_ladder(path, shape.budget, estimator_for(shape, path), renderer_for(shape),
                      summarizer, force=forced)


def plan_shake(store: Store, conv_id: int, shape: Shape) -> CompactionPlan:
    path = active_context(store, conv_id)
    return shake(path, estimator_for(shape, path))


def usage(store: Store, conv_id: int, shape: Shape) -> ContextUsage:
    path = active_context(store, conv_id)
    return context_usage(path, estimator_for(shape, path), window=shape.budget,
                         output_reserve=DEFAULT_OUTPUT_RESERVE)


def request_body(plan: CompactionPlan, shape: Shape, notes: list[str]) -> dict[str, Any]:
    """The request the plan would send, in the provider's own shape."""
    if shape.provider == "anthropic":
        return anthropic_body(plan.messages(), notes, shape.model)
    return openai_body(plan.messages(), notes, shape.model)


def write_preview(plan: CompactionPlan, shape: Shape, folder: Path,
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
    body = request_body(plan, shape, notes)
    for name, data in (("request.json", body), ("plan.json", plan.to_record()),
                       ("notes.json", notes)):
        out = folder / name
        safe_write.write_text(out, json.dumps(data, ensure_ascii=False, indent=2), db_path)
        written.append(out)
    return written


def record(store: Store, conv_id: int, plan: CompactionPlan, shape: Shape) -> int:
    """Store the plan's record on the tip (parameters, page hashes, token counts)."""
    tip = store.conversation(conv_id).tip_id
    if tip is None:
        raise ValueError(f"conversation {conv_id} is empty")
    kind = plan.rungs[-1] if plan.rungs else "none"
    g = page_geometry(_page_provider(shape), shape.model, shape.tier)
    params = {"provider": shape.provider, "model": shape.model, "window": shape.budget,
              "tier": shape.tier,  # and how that tier drew, since the cell table may change
              "page": [g.page_width, g.page_height], "font": g.font,
              "cell": [g.cell_width, g.cell_height], "spaced_marks": g.spaced_marks}
    return store.add_compaction(conv_id, tip, kind, params, plan.to_record(), plan.summary or "")


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
    lines += [f"note: {n}" for n in plan.notes]
    return lines
