"""The OCR half of the density benchmark: how well tesseract reads a page shape back.

A single line-breaking is a noisy sample: moving every row break by one column moved tesseract's
score on the same glyphs by up to three points here. So a full run (``CONVO_DENSITY_FULL=1``)
reads each shape at ``LAYOUTS`` column counts (its own and a few fewer), over the first
``OCR_CHARS`` characters of the sample (prose, code, and JSON with hex ids), and the mean is what
is compared; the spread is reported beside it. The default run reads the page's own layout.
A reference page the provider would downscale is read as the provider sees it (bicubic).
"""

from __future__ import annotations

import math
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from statistics import mean
from typing import Protocol

from explorer.compaction import fonts, image_cost
from explorer.compaction.page_geometry import PageGeometry
from explorer.compaction.snapshot_render import Page, SourceEntry, render_snapshot
from tests.benchmarks import ocr_proxy

OCR_CHARS = 10_000
# Column counts read: the page's own, and one and two fewer with CONVO_DENSITY_FULL=1. Three
# layouts of 18 shapes take tesseract well over 15 minutes, so the default reads the page's own
# layout only (a third of the time; its score is one sample of the spread below).
LAYOUTS = 3 if os.environ.get("CONVO_DENSITY_FULL") else 1
IDS = re.compile(
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,64}\b"
)


class Drawable(Protocol):
    """What the benchmark knows of a shape: a name, a geometry, whether it is a reference."""

    @property
    def name(self) -> str: ...
    @property
    def geometry(self) -> PageGeometry: ...
    @property
    def reference(self) -> bool: ...


@dataclass(frozen=True)
class Read:
    """Mean character accuracy and id recall over the layouts, and the accuracy's spread."""

    accuracy: float
    id_recall: float
    spread: float


Key = tuple[str, str, bool]  # shape name, provider (or "" when read natively), as seen
Outcome = Read | str  # a string says why OCR did not run


def read_layout(geometry: PageGeometry, entries: list[SourceEntry], text: str, seen: bool
                ) -> tuple[float, float]:
    """(accuracy, id recall) of the first ``OCR_CHARS`` characters drawn with ``geometry``."""
    g = geometry
    snapshot = render_snapshot(entries, g)
    expected: list[str] = []
    read: list[str] = []
    for page in snapshot.pages:
        start = len(expected) * g.columns
        if start >= OCR_CHARS:
            break
        rows = min(math.ceil((OCR_CHARS - start) / g.columns), page.rows)
        expected += [text[start + i * g.columns : start + (i + 1) * g.columns]
                     for i in range(rows)]
        read.append(_read_rows(g, page, rows, seen))
    got = "\n".join(read)
    ids = IDS.findall("".join(expected))
    return ocr_proxy.row_accuracy(expected, got), ocr_proxy.id_recall(ids, got)


def _read_rows(g: PageGeometry, page: Page, rows: int, seen: bool) -> str:
    """What tesseract reads from the top ``rows`` rows of ``page`` (as the provider sees it)."""
    size = image_cost.seen_size(g.provider, g.model, page.width, page.height) if seen else None
    image = ocr_proxy.as_seen(page.png, size)
    scale = image.height / page.height
    crop = image.crop((0, 0, image.width, round((g.padding + rows * g.cell_height) * scale)))
    glyph = fonts.cell_font(g.font).cell_height * scale
    return ocr_proxy.ocr(crop, ocr_proxy.upscale_factor(glyph))


def layouts(geometry: PageGeometry) -> list[PageGeometry]:
    """The geometry at its own column count and ``LAYOUTS - 1`` narrower ones."""
    return [replace(geometry, max_columns=geometry.columns - k) for k in range(LAYOUTS)]


def read_all(shapes: list[Drawable], drawn: dict[str, tuple[list[SourceEntry], str]]
             ) -> dict[Key, Outcome]:
    """Read every shape (references natively, and as a downscaling provider sees them)."""
    jobs: dict[Key, tuple[Drawable, bool]] = {}
    for s in shapes:
        g = s.geometry
        if not s.reference:
            jobs[(s.name, g.provider, False)] = (s, False)
            continue
        jobs.setdefault((s.name, "", False), (s, False))
        if image_cost.is_resampled(g.provider, g.model, g.page_width, g.page_height):
            seen = image_cost.seen_size(g.provider, g.model, g.page_width, g.page_height)
            if seen[0] < g.page_width:  # a downscale; an assumed upscale loses nothing
                jobs[(s.name, g.provider, True)] = (s, True)
    status = ocr_proxy.tesseract_status()
    if status is not None:
        return dict.fromkeys(jobs, status)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {
            key: [pool.submit(read_layout, g, *drawn[s.name], seen) for g in layouts(s.geometry)]
            for key, (s, seen) in jobs.items()
        }
        return {key: _summary([f.result() for f in fs]) for key, fs in futures.items()}


def _summary(reads: list[tuple[float, float]]) -> Read:
    accuracies = [a for a, _ in reads]
    return Read(mean(accuracies), mean(r for _, r in reads), max(accuracies) - min(accuracies))


def read_of(shape: Drawable, reads: dict[Key, Outcome]) -> Outcome:
    """What the provider's model would see: as seen when downscaled, else the native read."""
    g = shape.geometry
    for key in ((shape.name, g.provider, True), (shape.name, g.provider, False),
                (shape.name, "", False)):
        if key in reads:
            return reads[key]
    raise KeyError(shape.name)
