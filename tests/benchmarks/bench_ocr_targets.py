"""Issue #18's targets for Claude pages, read by Tesseract 5 and RapidOCR 1.4.4 (``ocr_targets``).

For each shipped Anthropic tier and the pxpipe reference shape: chars per billed token at the
28 px patch price, 1 - CER after NFKC for both engines, and the sample's hex ids read exactly
(of 120), both read row by row at 1x (``ocr_targets``). RapidOCR needs the ``bench-ocr`` extra
(``pip install -e ".[bench-ocr]"``); without it those rows say so. The engines read the rows that
hold the first ``LIMIT`` characters (prose, code and the start of the hex-id listing; the hex
count is then of the ids those rows hold); ``CONVO_OCR_FULL=1`` reads the whole ~40,000-character
sample (RapidOCR spends about 2 CPU-seconds a 313-column row of 5x8 glyphs).
"""

from __future__ import annotations

import os
from dataclasses import replace

from explorer.compaction.page_geometry import PageGeometry, page_geometry
from tests.benchmarks import ocr_proxy, ocr_targets
from tests.benchmarks.harness import Result

LIMIT = 14_000
TARGETS = {  # tier: (chars per token, RapidOCR, Tesseract) the pages must reach (L5)
    "dense": (19.3, 0.90, 0.86),
    "legible": (8.0, 0.93, 0.90),
}


def shapes() -> list[tuple[str, PageGeometry]]:
    dense = page_geometry("anthropic", tier="dense")
    out = [(f"{t} {page_geometry('anthropic', tier=t).font}", page_geometry("anthropic", tier=t))
           for t in TARGETS]
    out.append(("ref pxpipe 5x8 312 cols", replace(dense, tier="reference", max_columns=312)))
    return out


def run() -> list[Result]:
    status = ocr_proxy.tesseract_status()
    if status is not None:
        return [Result("ocr targets", f"not run: {status}", 0, "")]
    rapid = ocr_targets.rapid_available()
    limit = None if os.environ.get("CONVO_OCR_FULL") else LIMIT
    read = "whole sample" if limit is None else f"first {limit:,} chars"
    out: list[Result] = []
    if not rapid:
        out.append(Result("ocr targets", "RapidOCR not installed (the bench-ocr extra)", 0, ""))
    for name, g in shapes():
        s = ocr_targets.measure(g, rapid, limit)
        goal = TARGETS.get(g.tier)
        area = "ocr targets anthropic"
        out.append(Result(area, f"{name}: chars per billed token (28 px patches)",
                          s.chars_per_token, "chars/token",
                          f"≥ {goal[0]}" if goal else "", s.chars_per_token >= goal[0] if goal
                          else None))
        out.append(Result(area, f"{name}: Tesseract 1-CER ({read})", 100 * s.tesseract, "%",
                          f"≥ {100 * goal[2]:g} %" if goal else "",
                          s.tesseract >= goal[2] if goal else None))
        out.append(Result(area, f"{name}: Tesseract hex ids read", s.hex_tesseract,
                          f"of {s.hex_shown}"))
        if s.rapid is not None and s.hex_rapid is not None:
            out.append(Result(area, f"{name}: RapidOCR 1-CER ({read})", 100 * s.rapid, "%",
                              f"≥ {100 * goal[1]:g} %" if goal else "",
                              s.rapid >= goal[1] if goal else None))
            out.append(Result(area, f"{name}: RapidOCR hex ids read", s.hex_rapid,
                              f"of {s.hex_shown}"))
    return out
