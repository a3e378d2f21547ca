"""The OCR half of the density benchmark: how well tesseract reads a page shape back.

A single line-breaking is a noisy sample: moving every row break by one column moved tesseract's
score on the same glyphs by up to three points here. So a full run (``CONVO_DENSITY_FULL=1``)
reads each shape at ``LAYOUTS`` column counts (its own and a few fewer), over the first
``OCR_CHARS`` characters of the sample (prose, code, and JSON with hex ids), and the mean is what
is compared; the spread is reported beside it. The default run reads the page's own layout.
A reference page the provider would downscale is read as the provider sees it (bicubic).

Two engines: Tesseract on the upscaled block of rows (the proxy the density targets compare),
and RapidOCR's recogniser row by row at 1x (``ocr_targets``' way). Reads are kept in a file
and a run can be split by layout, engine and provider (``density_cache``).
"""

from __future__ import annotations

import math
import os
import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from statistics import mean
from typing import Protocol

from PIL import Image

from explorer.compaction import fonts, image_cost
from explorer.compaction.page_geometry import PageGeometry
from explorer.compaction.snapshot_render import Page, SourceEntry, render_snapshot
from tests.benchmarks import density_cache, ocr_proxy

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
    """Mean character accuracy and id recall over the layouts read, and the accuracy's spread."""

    accuracy: float
    id_recall: float
    spread: float
    layouts: int = 1  # how many of the counted layouts the mean is over


Key = tuple[str, str, bool]  # shape name, provider (or "" when read natively), as seen
Outcome = Read | str  # a string says why OCR did not run


def read_layout(geometry: PageGeometry, entries: list[SourceEntry], text: str, seen: bool,
                engine: str = "tesseract") -> tuple[float, float]:
    """(accuracy, id recall) of the first ``OCR_CHARS`` characters drawn with ``geometry``.

    ``tesseract`` reads the rows' block after an upscale (the proxy); ``rapidocr`` reads each
    row at the size the model receives it with RapidOCR's recogniser (``ocr_targets``).
    """
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
        reader = _read_rows if engine == "tesseract" else _rapid_rows
        read.append(reader(g, page, rows, seen))
    got = "\n".join(read)
    ids = IDS.findall("".join(expected))
    if engine == "rapidocr":
        from tests.benchmarks import ocr_targets  # it imports the density sample: not at load

        return ocr_targets.score(expected, got), ocr_proxy.id_recall(ids, got)
    return ocr_proxy.row_accuracy(expected, got), ocr_proxy.id_recall(ids, got)


def _seen(g: PageGeometry, page: Page, seen: bool) -> tuple[Image.Image, float]:
    size = image_cost.seen_size(g.provider, g.model, page.width, page.height) if seen else None
    image = ocr_proxy.as_seen(page.png, size)
    return image, image.height / page.height


def _read_rows(g: PageGeometry, page: Page, rows: int, seen: bool) -> str:
    """What tesseract reads from the top ``rows`` rows of ``page`` (as the provider sees it)."""
    image, scale = _seen(g, page, seen)
    crop = image.crop((0, 0, image.width, round((g.padding + rows * g.cell_height) * scale)))
    glyph = fonts.cell_font(g.font).cell_height * scale
    return ocr_proxy.ocr(crop, ocr_proxy.upscale_factor(glyph))


def _rapid_rows(g: PageGeometry, page: Page, rows: int, seen: bool) -> str:
    """What RapidOCR's recogniser reads from each of the top ``rows`` rows, one at a time."""
    from tests.benchmarks import ocr_targets

    image, scale = _seen(g, page, seen)
    crops: list[Image.Image] = []
    for r in range(rows):
        top = round((g.padding + r * g.cell_height) * scale)
        bottom = round((g.padding + (r + 1) * g.cell_height) * scale)
        row = image.crop((0, top, image.width, bottom))
        m = ocr_targets.MARGIN
        canvas = Image.new("L", (row.width + 2 * m, row.height + 2 * m), 255)
        canvas.paste(row, (m, m))
        crops.append(canvas)
    return "\n".join(ocr_targets.rapid_rows(crops))


def layouts(geometry: PageGeometry) -> list[PageGeometry]:
    """The geometry at its own column count and ``LAYOUTS - 1`` narrower ones."""
    return [replace(geometry, max_columns=geometry.columns - k) for k in range(LAYOUTS)]


def _jobs(shapes: list[Drawable]) -> dict[Key, tuple[Drawable, bool]]:
    """Every read to make: references natively and, when downscaled, as the provider sees them."""
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
    return jobs


def engine_status(engine: str) -> str | None:
    """None when ``engine`` can read here, else why not."""
    if engine == "tesseract":
        return ocr_proxy.tesseract_status()
    from tests.benchmarks import ocr_targets

    return None if ocr_targets.rapid_available() else "RapidOCR not installed (bench-ocr extra)"


def read_all(shapes: list[Drawable], drawn: dict[str, tuple[list[SourceEntry], str]],
             engine: str = "tesseract", cache: density_cache.ReadCache | None = None
             ) -> dict[Key, Outcome]:
    """Read every shape with ``engine``: the parts this invocation reads (``density_cache``),
    the rest from ``cache`` when it holds them; each new read is written to it at once."""
    jobs = _jobs(shapes)
    now = engine in density_cache.engines_now()
    status = engine_status(engine) if now else None
    reading = set(density_cache.layouts_now(LAYOUTS)) if now and status is None else set()
    pending: dict[Key, list[tuple[str, Future[tuple[float, float]]]]] = {}
    found: dict[Key, list[tuple[float, float]]] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for key, (s, seen) in jobs.items():
            found[key], pending[key] = [], []
            for k, g in enumerate(layouts(s.geometry)):
                entries, text = drawn[s.name]
                mark = density_cache.fingerprint(g, text, seen)
                tag = f"{engine}|{key[0]}|{key[1]}|{seen}|{k}|{mark}"
                hit = cache.get(tag) if cache is not None else None
                if hit is not None:
                    found[key].append(hit)
                elif k in reading and density_cache.reads_now(g.provider, s.reference):
                    pending[key].append((tag, pool.submit(read_layout, g, entries, text, seen,
                                                          engine)))
        for key, futures in pending.items():
            for tag, f in futures:
                found[key].append(f.result())
                if cache is not None:
                    cache.put(tag, found[key][-1])
    why = status or "not read in this part and not in the read cache (density_cache)"
    return {key: _summary(reads) if reads else why for key, reads in found.items()}


def _summary(reads: list[tuple[float, float]]) -> Read:
    accuracies = [a for a, _ in reads]
    return Read(mean(accuracies), mean(r for _, r in reads), max(accuracies) - min(accuracies),
                len(reads))


def read_of(shape: Drawable, reads: dict[Key, Outcome]) -> Outcome:
    """What the provider's model would see: as seen when downscaled, else the native read."""
    g = shape.geometry
    for key in ((shape.name, g.provider, True), (shape.name, g.provider, False),
                (shape.name, "", False)):
        if key in reads:
            return reads[key]
    raise KeyError(shape.name)
