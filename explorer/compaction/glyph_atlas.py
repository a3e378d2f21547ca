"""A glyph atlas: every glyph of a cell font drawn once, pages composed from it with numpy.

Drawing a page glyph by glyph (or row by row through FreeType) costs Python work per character;
a long middle holds hundreds of thousands of them. Here each glyph of the primary font is drawn
once into a cell of an array, a page is laid out as an array of glyph indices, and the page
bitmap is one fancy-indexing gather. Fallback glyphs (GNU Unifont) and the box drawn for a
character no font has are added to the atlas the first time they are needed. Cells are 1-bit
(1 = paper, 0 = ink), which is also what the PNG stores, so nothing is ever thresholded twice.
"""

from __future__ import annotations

import struct
import threading
import zlib
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw

from explorer.compaction import fonts

PNG_COMPRESS_LEVEL = 3  # zlib level: fast enough for ~1e6 chars/s, within ~5 % of level 6's size
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FALLBACK_INK = 160  # a scaled-down Unifont pixel at least ~37 % covered counts as ink
BLANK = 0  # atlas index of the empty cell (a space)

Grid = npt.NDArray[np.int32]
Bitmap = npt.NDArray[np.uint8]


@dataclass
class GlyphAtlas:
    """Cells of one font at one advance and pitch, and the map from characters to cells.

    ``cells[i]`` is a ``pitch`` x ``advance`` array; the glyph sits at ``offset`` inside it
    (the spacing an advance or pitch larger than the font adds is split around it).
    """

    font: fonts.CellFont
    advance: int
    pitch: int
    offset: tuple[int, int]
    cells: Bitmap
    lut: Grid
    _extra: dict[tuple[str, str, int], tuple[int, ...]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def indices(self, text: str) -> Grid:
        """Atlas indices of ``text``, every character of which the primary font draws."""
        codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        return self.lut[codes]

    def extra(self, char: str, kind: str, cells: int) -> tuple[int, ...]:
        """Indices of a fallback glyph (``kind`` "unifont") or missing box, ``cells`` wide."""
        key = (char, kind, cells)
        found = self._extra.get(key)
        if found is not None:
            return found
        with self._lock:
            if key not in self._extra:
                tile = self._extra_tile(char, kind, cells)
                parts = [tile[:, i * self.advance : (i + 1) * self.advance] for i in range(cells)]
                start = len(self.cells)
                self.cells = np.concatenate([self.cells, np.stack(parts)])
                self._extra[key] = tuple(range(start, start + cells))
            return self._extra[key]

    def compose(self, grid: Grid) -> Bitmap:
        """The bitmap of a ``rows`` x ``columns`` grid of indices (1 = paper, 0 = ink)."""
        rows, cols = grid.shape
        blocks = self.cells[grid]  # rows, cols, pitch, advance
        return blocks.transpose(0, 2, 1, 3).reshape(rows * self.pitch, cols * self.advance)

    def _extra_tile(self, char: str, kind: str, cells: int) -> Bitmap:
        size = (cells * self.advance, self.pitch)
        if kind == "missing":
            box = Image.new("L", size, 255)
            ImageDraw.Draw(box).rectangle((0, 1, size[0] - 2, size[1] - 2), outline=0)
            return (np.asarray(box) >= 128).astype(np.uint8)
        ink = fonts.unifont().glyph(char).convert("L")
        scaled = np.asarray(ink.resize(size, Image.Resampling.BOX))
        return (scaled < 255 - FALLBACK_INK).astype(np.uint8)


def draw_glyph(font: fonts.CellFont, char: str, advance: int, pitch: int, offset: tuple[int, int]
               ) -> Bitmap:
    """One glyph in a cell (1 = paper, 0 = ink): hand-drawn when the font's glyph file has it,
    else drawn by FreeType and clipped to the cell."""
    char = font.glyphs.aliases.get(char, char)
    rows = font.glyphs.drawn.get(char)
    if rows is not None:
        cell_bits = np.ones((pitch, advance), dtype=np.uint8)
        x, y = offset
        cell_bits[y : y + len(rows), x : x + len(rows[0])] = [[c == "." for c in r] for r in rows]
        return cell_bits
    cell = Image.new("L", (advance, pitch), 255)
    x, y = offset
    ImageDraw.Draw(cell).text((x, y + font.ascent), char, font=font.freetype, fill=0, anchor="ls")
    return (np.asarray(cell) >= 128).astype(np.uint8)


def _offset(font: fonts.CellFont, advance: int, pitch: int) -> tuple[int, int]:
    if advance < font.cell_width or pitch < font.cell_height:
        raise ValueError(
            f"font {font.name} ({font.cell_width}x{font.cell_height}) does not fit "
            f"{advance}x{pitch} cells"
        )
    return (advance - font.cell_width) // 2, (pitch - font.cell_height) // 2


@cache
def glyph_atlas(font_name: str, advance: int, pitch: int) -> GlyphAtlas:
    """The atlas of bundled font ``font_name`` in ``advance`` x ``pitch`` cells, built once."""
    font = fonts.cell_font(font_name)
    offset = _offset(font, advance, pitch)
    chars = sorted((c for c in font.covered if c != " "), key=ord)
    cells = np.ones((len(chars) + 1, pitch, advance), dtype=np.uint8)
    for i, char in enumerate(chars, start=1):
        cells[i] = draw_glyph(font, char, advance, pitch, offset)
    lut = np.zeros(max(map(ord, font.covered)) + 1, dtype=np.int32)
    lut[[ord(c) for c in chars]] = np.arange(1, len(chars) + 1, dtype=np.int32)
    return GlyphAtlas(font, advance, pitch, offset, cells, lut)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def encode_png(bitmap: Bitmap, compress_level: int | None = None) -> bytes:
    """A 1-bit grayscale PNG of ``bitmap`` (1 = white), written directly.

    Every row uses filter type 0 (none): on 1-bit text pages the adaptive filters a general
    encoder tries cost more time than they save bytes. No metadata chunks, so the same bitmap
    gives the same bytes for a given zlib.
    """
    height, width = bitmap.shape
    rows = np.empty((height, 1 + (width + 7) // 8), dtype=np.uint8)
    rows[:, 0] = 0
    rows[:, 1:] = np.packbits(bitmap, axis=1)
    level = PNG_COMPRESS_LEVEL if compress_level is None else compress_level
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"".join(
        (
            PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(rows.tobytes(), level)),
            _chunk(b"IEND", b""),
        )
    )
