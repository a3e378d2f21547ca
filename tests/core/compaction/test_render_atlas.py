"""The numpy glyph atlas draws exactly what FreeType draws, and its PNGs are stable (L4)."""

from __future__ import annotations

import hashlib
import io
import zlib

import numpy as np
import pytest
from PIL import Image, ImageDraw

from explorer.compaction import fonts
from explorer.compaction.glyph_atlas import encode_png, glyph_atlas
from explorer.compaction.page_geometry import PageGeometry, page_geometry
from explorer.compaction.snapshot_render import SourceEntry, normalize, render_snapshot

SAMPLE = 'def add(a, b):\n    return a + b  # {"id": "9fceb02d", "ok": true}\n' * 12


def _pillow_page(text: str, geometry: PageGeometry, height: int) -> np.ndarray:
    """The slow reference path: FreeType draws each cell with ImageDraw.text, and a glyph the
    font's glyph file draws is painted from its picture pixel by pixel."""
    font = fonts.cell_font(geometry.font)
    image = Image.new("L", (geometry.page_width, height), 255)
    draw = ImageDraw.Draw(image)
    flat, cols = normalize(text, geometry.spaced_marks), geometry.columns
    x0 = geometry.padding + (geometry.cell_width - font.cell_width) // 2
    y0 = geometry.padding + (geometry.cell_height - font.cell_height) // 2
    for r, start in enumerate(range(0, len(flat), cols)):
        row = flat[start : start + cols]
        for c, char in enumerate(row):  # cell by cell, so wider advances are honoured
            x, y = x0 + c * geometry.cell_width, y0 + r * geometry.cell_height
            picture = font.glyphs.drawn.get(font.glyphs.aliases.get(char, char))
            if picture is None:
                draw.text((x, y + font.ascent), char, font=font.freetype, fill=0, anchor="ls")
                continue
            for dy, line in enumerate(picture):
                for dx, pixel in enumerate(line):
                    if pixel == "#":
                        image.putpixel((x + dx, y + dy), 0)
    return np.asarray(image) >= 128


def _decoded(png: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.mode == "1"
    return np.asarray(image.convert("L")) >= 128


@pytest.mark.parametrize(
    "geometry",
    [
        page_geometry("anthropic", tier="dense"),
        page_geometry("openai", tier="legible"),
        PageGeometry("anthropic", "claude-sonnet-4-5", "wide", "8x13", 1568, 1568, 11, 16, 1568, 2),
    ],
    ids=["dense", "legible", "8x13-on-11x16"],
)
def test_atlas_page_is_pixel_identical_to_freetype_drawing(geometry: PageGeometry) -> None:
    snapshot = render_snapshot([SourceEntry("1", SAMPLE)], geometry)
    (page,) = snapshot.pages
    got = _decoded(page.png)
    want = _pillow_page(SAMPLE, geometry, page.height)
    assert got.shape == want.shape
    assert (~got).sum() > 1000  # there is ink to compare
    assert np.array_equal(got, want)


def test_png_is_1_bit_without_metadata_chunks() -> None:
    png = render_snapshot([SourceEntry("1", SAMPLE)], page_geometry("gemini")).pages[0].png
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, pos = [], 8
    while pos < len(png):
        size = int.from_bytes(png[pos : pos + 4], "big")
        chunks.append(png[pos + 4 : pos + 8])
        assert zlib.crc32(png[pos + 4 : pos + 8 + size]) == int.from_bytes(
            png[pos + 8 + size : pos + 12 + size], "big"
        )
        pos += 12 + size
    assert chunks == [b"IHDR", b"IDAT", b"IEND"]
    assert png[24:26] == b"\x01\x00"  # bit depth 1, greyscale


def test_encoder_round_trips_any_bitmap() -> None:
    rng = np.random.default_rng(7)
    for width in (1, 7, 8, 9, 333):
        bitmap = rng.integers(0, 2, size=(5, width), dtype=np.uint8)
        assert np.array_equal(_decoded(encode_png(bitmap)), bitmap.astype(bool))


def test_fallback_glyphs_join_the_atlas_once() -> None:
    atlas = glyph_atlas("5x8", 5, 8)
    first = atlas.extra("中", "unifont", 2)
    size = len(atlas.cells)
    assert atlas.extra("中", "unifont", 2) == first
    assert len(atlas.cells) == size and len(first) == 2
    assert all(atlas.cells[i].min() == 0 for i in first)  # both halves carry ink


def test_a_font_larger_than_its_cell_is_refused() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        glyph_atlas("8x13", 6, 13)


@pytest.mark.parametrize("tier", ["dense", "legible"])
def test_L4_mixed_scripts_give_the_same_bytes_each_time(tier: str) -> None:
    g = page_geometry("anthropic", tier=tier)
    text = "Olá, então — ærlig talt, blåbær! Ελληνικά 中文 한국어 \U0001f600 " * 200
    digests = [
        [hashlib.sha256(p.png).hexdigest() for p in render_snapshot([("user", 1, text)], g).pages]
        for _ in range(2)
    ]
    assert digests[0] == digests[1]
    assert len(digests[0]) >= 1
