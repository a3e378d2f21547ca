"""The bundled bitmap fonts and which of them can draw a given character.

Each tier draws with one fixed-cell X.org misc-fixed font (PCF, through FreeType) and falls back to
GNU Unifont for the scripts that font lacks. A ``<name>.glyphs`` file beside the font adds or
redraws a few glyphs by hand (``glyph_file``). Coverage is read from the font files themselves: a
character counts as drawable only if the font maps it to a real glyph — not to the font's default
glyph, and not to an empty one (unless the character is a space). Fonts are loaded once per process.
"""

from __future__ import annotations

import gzip
import struct
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from PIL import Image, ImageFont

from explorer.compaction.glyph_file import GlyphFile, GlyphFileError, load_glyphs
from explorer.resources import resource_path
from explorer.tree.errors import ExplorerError

CELL_FONTS: dict[str, tuple[int, int]] = {
    "5x8": (5, 8),
    "6x9": (6, 9),
    "6x13": (6, 13),
    "8x13": (8, 13),
    "10x20": (10, 20),
}
UNIFONT_FILE = "unifont.hex.gz"
UNIFONT_HEIGHT = 16

_PCF_MAGIC = b"\x01fcp"
_PCF_METRICS = 1 << 2
_PCF_BDF_ENCODINGS = 1 << 5
_PCF_BYTE_MASK = 1 << 2
_PCF_COMPRESSED_METRICS = 0x100
_NO_GLYPH = 0xFFFF


class FontFileError(ExplorerError, ValueError):
    """A bundled font file is not what it should be."""


@dataclass(frozen=True)
class CellFont:
    """A fixed-cell bitmap font: FreeType draws whole rows with it, in cells of one size."""

    name: str
    cell_width: int
    cell_height: int
    ascent: int
    freetype: ImageFont.FreeTypeFont
    covered: frozenset[str]
    glyphs: GlyphFile = field(default_factory=GlyphFile)  # drawn over the PCF (glyph_file)

    def can_draw(self, char: str) -> bool:
        return char in self.covered


@dataclass(frozen=True)
class Unifont:
    """GNU Unifont glyphs of the BMP, from its ``.hex`` source: 8 or 16 px wide, 16 px high."""

    bitmaps: dict[int, str]

    def can_draw(self, char: str) -> bool:
        return ord(char) in self.bitmaps

    def cells(self, char: str) -> int:
        """1 for a half-width glyph, 2 for a full-width one (CJK, Hangul, ...)."""
        return 2 if len(self.bitmaps[ord(char)]) > 32 else 1

    def glyph(self, char: str) -> Image.Image:
        """The glyph as a 1-bit image, ink = 1."""
        bits = self.bitmaps[ord(char)]
        width = 16 if len(bits) > 32 else 8
        return Image.frombytes("1", (width, UNIFONT_HEIGHT), bytes.fromhex(bits))


def _pcf_tables(data: bytes, path: Path) -> dict[int, int]:
    """Offsets of the PCF tables by type."""
    if data[:4] != _PCF_MAGIC:
        raise FontFileError(f"{path.name} is not a PCF font")
    (count,) = struct.unpack_from("<i", data, 4)
    tables: dict[int, int] = {}
    for i in range(count):
        kind, _fmt, _size, offset = struct.unpack_from("<iiii", data, 8 + 16 * i)
        tables[kind] = offset
    for needed in (_PCF_METRICS, _PCF_BDF_ENCODINGS):
        if needed not in tables:
            raise FontFileError(f"{path.name} lacks PCF table {needed}")
    return tables


def _pcf_metrics(data: bytes, offset: int) -> list[tuple[int, bool]]:
    """(advance width, has ink) for every glyph, in glyph-index order."""
    (fmt,) = struct.unpack_from("<i", data, offset)
    order = ">" if fmt & _PCF_BYTE_MASK else "<"
    if fmt & _PCF_COMPRESSED_METRICS:
        (count,) = struct.unpack_from(order + "h", data, offset + 4)
        raw = data[offset + 6 : offset + 6 + 5 * count]
        rows = [tuple(b - 0x80 for b in raw[i : i + 5]) for i in range(0, len(raw), 5)]
    else:
        (count,) = struct.unpack_from(order + "i", data, offset + 4)
        rows = [
            struct.unpack_from(order + "6h", data, offset + 8 + 12 * i)[:5] for i in range(count)
        ]
    return [(width, rsb > lsb and asc + desc > 0) for lsb, rsb, width, asc, desc in rows]


def _pcf_encoding(data: bytes, offset: int) -> tuple[dict[int, int], int]:
    """Code point -> glyph index, and the default character's code point."""
    (fmt,) = struct.unpack_from("<i", data, offset)
    order = ">" if fmt & _PCF_BYTE_MASK else "<"
    min2, max2, min1, max1, default = struct.unpack_from(order + "5h", data, offset + 4)
    span = max2 - min2 + 1
    indices = struct.unpack_from(order + f"{span * (max1 - min1 + 1)}H", data, offset + 14)
    mapping = {
        ((min1 + i // span) << 8) | (min2 + i % span): glyph
        for i, glyph in enumerate(indices)
        if glyph != _NO_GLYPH
    }
    return mapping, default


def _is_blank_by_design(char: str) -> bool:
    return unicodedata.category(char) == "Zs"


def _may_draw(char: str) -> bool:
    """Controls, surrogates, private-use and unassigned code points are never "drawable".

    Fonts do carry glyphs for some of them (Unifont's hex-code boxes for unassigned code points,
    vendor symbols in the private-use area), but those glyphs do not show what the text meant,
    so such characters are reported instead.
    """
    return unicodedata.category(char) not in ("Cc", "Cs", "Co", "Cn")


def pcf_coverage(path: Path, cell_width: int) -> frozenset[str]:
    """Characters the PCF font draws with a real, single-cell glyph."""
    data = path.read_bytes()
    tables = _pcf_tables(data, path)
    metrics = _pcf_metrics(data, tables[_PCF_METRICS])
    mapping, default = _pcf_encoding(data, tables[_PCF_BDF_ENCODINGS])
    default_glyph = mapping.get(default)
    covered: set[str] = set()
    for code, glyph in mapping.items():
        if glyph >= len(metrics) or (glyph == default_glyph and code != default):
            continue
        char = chr(code)
        if not _may_draw(char):
            continue
        width, inked = metrics[glyph]
        if width == cell_width and (inked or _is_blank_by_design(char)):
            covered.add(char)
    return frozenset(covered)


@cache
def cell_font(name: str) -> CellFont:
    """The bundled cell font ``name`` (a key of ``CELL_FONTS``), loaded once."""
    if name not in CELL_FONTS:
        raise ValueError(f"unknown cell font {name!r}; bundled: {', '.join(CELL_FONTS)}")
    cell_w, cell_h = CELL_FONTS[name]
    path = resource_path("fonts", f"{name}.pcf")
    freetype = ImageFont.truetype(str(path), cell_h)
    ascent, descent = freetype.getmetrics()
    if ascent + descent != cell_h or freetype.getlength("M") != cell_w:
        raise FontFileError(f"{path.name} is not a {cell_w}x{cell_h} cell font")
    covered = pcf_coverage(path, cell_w)
    glyphs = load_glyphs(path.with_suffix(".glyphs"), (cell_w, cell_h))
    for char, target in glyphs.aliases.items():
        if target not in covered and target not in glyphs.drawn:
            raise GlyphFileError(f"{name}.glyphs: {char!r} is drawn as {target!r}, which it lacks")
    return CellFont(name, cell_w, cell_h, ascent, freetype, covered | glyphs.chars, glyphs)


@lru_cache(maxsize=1)
def unifont() -> Unifont:
    """GNU Unifont's BMP glyphs, parsed once from the bundled ``.hex.gz``."""
    path = resource_path("fonts", UNIFONT_FILE)
    bitmaps: dict[int, str] = {}
    for line in gzip.decompress(path.read_bytes()).decode("ascii").splitlines():
        code, _, bits = line.partition(":")
        if len(bits) in (32, 64) and _may_draw(chr(int(code, 16))):
            bitmaps[int(code, 16)] = bits
    if not bitmaps:
        raise FontFileError(f"{path.name} holds no glyphs")
    return Unifont(bitmaps)


def font_for(char: str, primary: str) -> str | None:
    """Name of the first font that draws ``char`` (``primary``, then ``unifont``), or None."""
    if cell_font(primary).can_draw(char):
        return primary
    if unifont().can_draw(char):
        return "unifont"
    return None


def undrawable(text: str, primary: str) -> list[str]:
    """The distinct characters of ``text`` that no bundled font can draw, in code-point order."""
    font = cell_font(primary)
    candidates = set(text) - font.covered
    return sorted((c for c in candidates if not unifont().can_draw(c)), key=ord)
