"""Snapshot render speed: a 200,000-token middle (~800,000 characters) to PNG pages.

The middle is the density sample repeated as messages until it holds ~800,000 characters, so
the mix of prose, code, JSON, Portuguese and Norwegian is realistic. Measured per provider and
tier: pages per second composing the page bitmaps (layout and atlas gather, no PNG), pages and
characters per second to encoded PNG, and the wall time of the whole middle (a 200,000-token
conversation should preview in under a second). Each figure is the best of ``REPEAT`` runs,
with the median beside it: the machine may be shared.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from explorer.compaction.glyph_atlas import glyph_atlas
from explorer.compaction.page_geometry import TIERS, PageGeometry, page_geometry
from explorer.compaction.snapshot_render import (
    SourceEntry,
    _Layout,
    page_bitmap,
    render_snapshot,
    to_entries,
)
from tests.benchmarks.bench_density import sample_messages
from tests.benchmarks.harness import Result

MIDDLE_CHARS = 800_000
REPEAT = 5
PROVIDERS = ("anthropic", "openai", "gemini")


def middle() -> list[SourceEntry]:
    """~800,000 characters of transcript entries, with fresh message ids per copy."""
    base = to_entries(sample_messages())
    out: list[SourceEntry] = []
    copy = 0
    while sum(len(e.text) for e in out) < MIDDLE_CHARS:
        out += [SourceEntry(f"{copy}.{e.message_id}", e.text) for e in base]
        copy += 1
    return out


def _times(fn: Callable[[], object]) -> tuple[float, float]:
    """(best, median) seconds of ``REPEAT`` runs."""
    samples = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return min(samples), statistics.median(samples)


def compose_only(entries: list[SourceEntry], g: PageGeometry) -> int:
    """Lay out and compose every page bitmap without encoding it; the page count."""
    atlas = glyph_atlas(g.font, g.cell_width, g.cell_height)
    layout = _Layout(g.columns, atlas)
    for entry in entries:
        layout.add(entry)
    rows = layout.finish()
    for i in range(0, len(rows), g.rows):
        page_bitmap(rows[i : i + g.rows], g, atlas)
    return -(-len(rows) // g.rows)


def run() -> list[Result]:
    entries = middle()
    chars = sum(len(e.text) for e in entries)
    results = [Result("render", "middle size", chars, "chars", "~800,000 (200,000 tokens)")]
    for provider in PROVIDERS:
        for tier in TIERS:
            g = page_geometry(provider, tier=tier)
            render_snapshot(entries[:20], g)  # atlas built once, outside the timing
            snap = render_snapshot(entries, g)
            pages = len(snap.pages)
            name = f"{provider} {tier} {g.font} {g.page_width}x{g.page_height}"
            best, med = _times(lambda g=g: compose_only(entries, g))  # type: ignore[misc]
            results.append(Result("render", f"{name}: compose ({pages} pages; median "
                                  f"{pages / med:,.0f})", pages / best, "pages/s", "≥ 300",
                                  pages / best >= 300))
            best, med = _times(lambda g=g: render_snapshot(entries, g))  # type: ignore[misc]
            results += [
                Result("render", f"{name}: to PNG (median {pages / med:,.0f})", pages / best,
                       "pages/s"),
                Result("render", f"{name}: to PNG (median {snap.chars / med / 1e6:.2f} M)",
                       snap.chars / best, "chars/s", "≥ 1,000,000", snap.chars / best >= 1e6),
                Result("render", f"{name}: whole middle (median {med * 1000:,.0f} ms)",
                       best * 1000, "ms", "< 1,000", best < 1.0),
            ]
    return results
