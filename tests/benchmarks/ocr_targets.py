"""Two OCR engines reading Claude snapshot pages, scored the way issue #18 states its targets.

Score = 1 - character error rate after NFKC (whitespace runs as one space, row by row), read by
Tesseract 5 and by RapidOCR 1.4.4 (``rapidocr-onnxruntime``, the ``bench-ocr`` extra; never needed
by the tests). Price = Claude's 28 px patches, ceil(w/28) * ceil(h/28) per page. Hex ids read =
how many of the sample's exact hex ids (short and full commit hashes, UUIDs, SHA-256) appear
verbatim in an engine's reading, whitespace removed (rows wrap inside an id).

The sample is built here, not read from a file: the prose, code and JSON of the density fixture
and a JSON tool result listing 120 seeded random hex ids (so the ids are not words an engine's
language model can guess).
"""

from __future__ import annotations

import io
import math
import os
import random
import re
import subprocess
import tempfile
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from explorer.compaction.page_geometry import PageGeometry
from explorer.compaction.snapshot_render import SourceEntry, normalize, render_snapshot, to_entries
from tests.benchmarks import ocr_proxy
from tests.benchmarks.bench_density import sample_messages

HEX_IDS = 120
SAMPLE_CHARS = 40_000
PATCH = 28
LISTING_AT = 6  # entries before the hex listing: a short reading still meets every kind of text
STRIP_ROWS = 16  # rows handed to an engine at once: whole pages are slow to read
TESSERACT_SCALE = 2  # nearest-neighbour; read 5x8 and 6x9 pages better than 3x or 4x here


def patch_price(width: int, height: int) -> int:
    """Claude's price of an image as the references' measured billing follows it."""
    return math.ceil(width / PATCH) * math.ceil(height / PATCH)


def hex_ids(seed: int = 18) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(HEX_IDS):
        kind = i % 4
        if kind == 0:
            out.append(f"{rng.getrandbits(48):012x}")
        elif kind == 1:
            out.append(f"{rng.getrandbits(160):040x}")
        elif kind == 2:
            h = f"{rng.getrandbits(128):032x}"
            out.append(f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}")
        else:
            out.append(f"{rng.getrandbits(64):016x}")
    return out


@cache
def sample_entries() -> tuple[tuple[SourceEntry, ...], tuple[str, ...]]:
    """About 40,000 characters of entries, and the hex ids they hold."""
    ids = hex_ids()
    rows = [f'{{"run": {n}, "id": "{i}", "ok": {str(n % 3 != 0).lower()}}}'
            for n, i in enumerate(ids)]
    listing = SourceEntry("900", "[tool_result #900] " + "\n".join(rows))
    entries: list[SourceEntry] = []
    used = len(listing.text)
    for entry in to_entries(sample_messages()):
        if used + len(entry.text) > SAMPLE_CHARS:
            break
        entries.append(entry)
        used += len(entry.text) + 1
    return (*entries[:LISTING_AT], listing, *entries[LISTING_AT:]), tuple(ids)


def drawn(entries: tuple[SourceEntry, ...], spaced: bool) -> str:
    return " ".join(normalize(e.text, spaced) for e in entries)


@dataclass(frozen=True)
class Score:
    tesseract: float
    rapid: float | None
    hex_tesseract: int
    hex_rapid: int | None
    chars_per_token: float
    pages: int
    tokens: int


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def score(expected_rows: list[str], got: str) -> float:
    return ocr_proxy.row_accuracy([_nfkc(r) for r in expected_rows], _nfkc(got))


def ids_read(ids: tuple[str, ...], got: str) -> int:
    flat = re.sub(r"\s+", "", _nfkc(got))
    return sum(1 for i in ids if i in flat)


@cache
def _rapid() -> Any:
    from rapidocr_onnxruntime import RapidOCR  # the bench-ocr extra

    return RapidOCR()


def rapid_available() -> bool:
    try:
        _rapid()
    except ImportError:
        return False
    return True


def rapid_read(image: Image.Image, pitch: float) -> str:
    """RapidOCR's boxes as lines: each box joins the row its centre falls in."""
    found, _ = _rapid()(np.asarray(image.convert("RGB")))
    rows: dict[int, list[tuple[float, str]]] = {}
    for box, text, _conf in found or []:
        cy = sum(p[1] for p in box) / 4
        rows.setdefault(int(cy // pitch), []).append((box[0][0], text))
    return "\n".join(" ".join(t for _, t in sorted(rows[r])) for r in sorted(rows))


def tesseract_read(image: Image.Image) -> str:
    """Tesseract 5, English, one uniform block of text."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "strip.png"
        image.save(path)
        done = subprocess.run(
            ["tesseract", str(path), "stdout", "-l", "eng", "--psm", "6"],
            capture_output=True, text=True, check=True, timeout=900,
            env={**os.environ, "OMP_THREAD_LIMIT": "1"},
        )
    return done.stdout


def page_image(png: bytes, factor: int) -> Image.Image:
    image = Image.open(io.BytesIO(png)).convert("L")
    return image.resize((image.width * factor, image.height * factor), Image.Resampling.NEAREST)


def measure(g: PageGeometry, with_rapid: bool, limit: int | None = None) -> Score:
    """Render the sample with ``g`` and read every page (or the first ``limit`` characters)."""
    entries, ids = sample_entries()
    text = drawn(entries, g.spaced_marks)
    snapshot = render_snapshot(list(entries), g)
    tokens = sum(patch_price(p.width, p.height) for p in snapshot.pages)
    full = patch_price(g.page_width, g.page_height)
    expected: list[str] = []
    tess: list[str] = []
    rapid: list[str] = []
    for page in snapshot.pages:
        start = len(expected) * g.columns
        if limit is not None and start >= limit:
            break
        expected += [text[start + i * g.columns : start + (i + 1) * g.columns]
                     for i in range(page.rows)]
        image = page_image(page.png, 1)
        rows = page.rows if limit is None else min(page.rows, -(-(limit - start) // g.columns))
        del expected[len(expected) - page.rows + rows :]
        pitch = g.cell_height
        for top in range(0, rows, STRIP_ROWS):
            strip = image.crop((0, top * pitch, image.width, min(rows, top + STRIP_ROWS) * pitch))
            big = strip.resize((strip.width * TESSERACT_SCALE, strip.height * TESSERACT_SCALE),
                               Image.Resampling.NEAREST)
            tess.append(tesseract_read(big))
            if with_rapid:
                rapid.append(rapid_read(strip, pitch))
    got_t, got_r = "\n".join(tess), "\n".join(rapid)
    return Score(
        score(expected, got_t),
        score(expected, got_r) if with_rapid else None,
        ids_read(ids, got_t),
        ids_read(ids, got_r) if with_rapid else None,
        g.chars_per_page / full,
        len(snapshot.pages),
        tokens,
    )
