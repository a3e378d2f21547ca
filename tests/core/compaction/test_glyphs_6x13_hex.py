"""The legible tier's 6x13 hex digits: distinct from their look-alikes, and apart when doubled."""

from __future__ import annotations

import hashlib
import io

import numpy as np
import pytest
from PIL import Image

from explorer.compaction import fonts
from explorer.compaction.glyph_atlas import glyph_atlas
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.snapshot_render import SourceEntry, render_snapshot

HEX = "0123456789abcdef"
# Pairs an OCR engine or a reader confuses at 6x13; each must differ by at least MIN_PIXELS.
LOOK_ALIKES = ["0o", "0O", "1l", "1I", "1i", "1|", "5s", "5S", "6b", "8B", "9g", "9q", "2z",
               "ae", "ce", "ad", "ao", "eo", "db", "ft", "f+", "4A", "7T", "3B"]
MIN_PIXELS = 6


def _cell(char: str, advance: int = 6) -> np.ndarray:
    atlas = glyph_atlas("6x13", advance, 13)
    return atlas.cells[atlas.indices(char)[0]]


def test_every_hex_digit_is_drawn_by_the_glyph_file() -> None:
    drawn = fonts.cell_font("6x13").glyphs.drawn
    assert set(HEX) <= set(drawn)
    pictures = {c: _cell(c).tobytes() for c in HEX}
    assert len(set(pictures.values())) == len(HEX)


@pytest.mark.parametrize("pair", LOOK_ALIKES)
def test_6x13_look_alikes_differ_by_enough_pixels(pair: str) -> None:
    a, b = (_cell(c) for c in pair)
    assert int((a != b).sum()) >= MIN_PIXELS, pair


def test_6x13_hex_digits_leave_two_blank_columns_on_the_font_cell() -> None:
    for char in HEX:
        ink = _cell(char) == 0
        columns = np.flatnonzero(ink.any(axis=0))
        assert columns.min() >= 1 and columns.max() <= 4, char  # columns 0 and 5 are paper


def _blank_gaps(png: bytes, g_width: int, count: int) -> list[int]:
    """Widths of the blank column runs between the first ``count`` glyphs of the first row."""
    g = page_geometry("anthropic", tier="legible")
    page = np.asarray(Image.open(io.BytesIO(png)).convert("L")) < 128
    ink = page[: g.cell_height, : count * g_width].any(axis=0)
    gaps: list[int] = []
    run = 0
    seen_ink = False
    for x in ink:
        if x:
            if seen_ink and run:
                gaps.append(run)
            seen_ink, run = True, 0
        else:
            run += 1
    return gaps


@pytest.mark.parametrize("pair", [c * 2 for c in HEX])
def test_L5_a_doubled_hex_digit_on_a_legible_page_stays_two_glyphs(pair: str) -> None:
    g = page_geometry("anthropic", tier="legible")
    snapshot = render_snapshot([SourceEntry("1", pair * 3)], g)
    gaps = _blank_gaps(snapshot.pages[0].png, g.cell_width, 6)
    assert len(gaps) >= 5, (pair, gaps)  # every glyph stands apart from the next
    assert min(gaps) >= 3, (pair, gaps)  # wider than the one column misc-fixed leaves


def test_L5_the_legible_claude_tier_keeps_the_issues_density_bar() -> None:
    g = page_geometry("anthropic", tier="legible")
    patches = -(-g.page_width // 28) * -(-g.page_height // 28)
    assert g.chars_per_page / patches >= 7.0  # the best reference's legible shape: 6.38
    assert g.cost() == patches


def test_L4_hex_ids_on_legible_pages_render_byte_identically() -> None:
    g = page_geometry("anthropic", tier="legible")
    text = " ".join(f"{n:040x}" for n in range(10**12, 10**12 + 400, 7))
    digests = [[hashlib.sha256(p.png).hexdigest()
                for p in render_snapshot([SourceEntry("1", text)], g).pages] for _ in range(2)]
    assert digests[0] == digests[1]
