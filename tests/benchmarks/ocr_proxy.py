"""An OCR legibility proxy for snapshot pages: tesseract after a nearest-neighbour upscale.

A model is not tesseract, but a page that an OCR engine reads back well holds glyphs that are
distinct at the pixels sent; one it cannot read is a page whose glyphs have merged. Character
accuracy is ``1 - Levenshtein(expected, ocr) / len(expected)`` computed by an exact dynamic
program (numpy, one vectorized row at a time) over whitespace-collapsed text.
"""

from __future__ import annotations

import io
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from PIL import Image

LANGS = "eng+por+nor"
TARGET_GLYPH_PX = 24  # upscale until a glyph is about this tall (larger read worse here)
_WS = re.compile(r"\s+")
# tesseract's language model turns straight quotes into typographic ones; a reader who sees
# either has read the same character, so both sides are folded to the straight forms.
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "‘": "'", "’": "'", "‚": "'"})


class OcrMissing(RuntimeError):
    """tesseract (or one of its language packs) is not installed."""


def tesseract_status() -> str | None:
    """None when tesseract with eng, por and nor is ready, else what is missing."""
    exe = shutil.which("tesseract")
    if exe is None:
        return "tesseract is not installed (apt-get install tesseract-ocr)"
    done = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, check=False)
    have = set(done.stdout.split())
    missing = [lang for lang in LANGS.split("+") if lang not in have]
    if missing:
        return f"tesseract lacks language data: {', '.join(missing)}"
    return None


def upscale_factor(glyph_height: float) -> int:
    """The integer factor that brings a glyph near ``TARGET_GLYPH_PX`` (at least 2)."""
    return max(2, math.ceil(TARGET_GLYPH_PX / glyph_height))


def as_seen(png: bytes, size: tuple[int, int] | None) -> Image.Image:
    """The page as the provider would see it: resampled to ``size`` when it would be."""
    image = Image.open(io.BytesIO(png)).convert("L")
    if size is not None and size != image.size:
        image = image.resize(size, Image.Resampling.BICUBIC)
    return image


def ocr(image: Image.Image, factor: int, psm: int = 6) -> str:
    """Text tesseract reads from ``image`` after a ``factor`` x nearest-neighbour upscale."""
    status = tesseract_status()
    if status is not None:
        raise OcrMissing(status)
    big = image.resize((image.width * factor, image.height * factor), Image.Resampling.NEAREST)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "page.png"
        big.save(path)
        done = subprocess.run(
            ["tesseract", str(path), "stdout", "-l", LANGS, "--psm", str(psm), "--dpi", "300"],
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
            env={**os.environ, "OMP_THREAD_LIMIT": "1"},  # threads only thrash on two cores
        )
    return done.stdout


def collapse(text: str) -> str:
    """Whitespace runs as one space, typographic quotes as straight ones."""
    return _WS.sub(" ", text.translate(_QUOTES)).strip()


def levenshtein(a: str, b: str) -> int:
    """Exact edit distance; each DP row is a handful of numpy operations."""
    if not a or not b:
        return max(len(a), len(b))
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    steps = np.arange(len(b) + 1, dtype=np.int64)
    prev = steps.copy()
    for i, ch in enumerate(a, start=1):
        subst = prev[:-1] + (bb != ord(ch))
        best = np.empty_like(prev)
        best[0] = i
        best[1:] = np.minimum(prev[1:] + 1, subst)
        # insertions: cur[j] = min over k <= j of best[k] + (j - k)
        prev = np.minimum.accumulate(best - steps) + steps
    return int(prev[-1])


def char_accuracy(expected: str, got: str) -> float:
    """1 - normalized edit distance over whitespace-collapsed text, floored at 0."""
    e, g = collapse(expected), collapse(got)
    if not e:
        return 1.0 if not g else 0.0
    return max(0.0, 1.0 - levenshtein(e, g) / len(e))


def row_accuracy(rows: Iterable[str], got: str) -> float:
    """Character accuracy that knows where the printed rows break.

    A row break inside a word is not a space, yet a reader that returns one line per row puts
    one there; comparing row by row (each row's whitespace collapsed, rows joined by a newline on
    both sides) charges a narrow page nothing for breaking more words, and still charges a
    reader that merges, splits or drops rows.
    """
    e = "\n".join(r for r in (collapse(row) for row in rows) if r)
    g = "\n".join(r for r in (collapse(line) for line in got.splitlines()) if r)
    if not e:
        return 1.0 if not g else 0.0
    return max(0.0, 1.0 - levenshtein(e, g) / len(e))


def id_recall(ids: Iterable[str], text: str) -> float:
    """Fraction of ``ids`` found verbatim in ``text`` with whitespace removed (rows wrap)."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return 1.0
    flat = _WS.sub("", text)
    return sum(1 for i in wanted if i in flat) / len(wanted)
