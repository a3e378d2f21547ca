"""Page and glyph-cell sizes for snapshot pages, per provider and tier (SPEC §5, rule L5).

A page is sized so that the provider bills it without resampling it: a downscaled page loses
glyphs (a 5 px cell shrunk by a third is noise), and a page cut just past a billing unit pays for
a whole unit of blank pixels. Two tiers trade density against legibility:

- ``dense``: misc-fixed 5x8 cells, for the gist of a long middle at the lowest cost;
- ``legible``: for text the model must read closely, the roomiest cell that still carries at
  least as many characters per billed token as the 8x13 frames other tools send (which the
  providers downscale). What that allows depends on the price of a pixel, so it is chosen per
  provider (``LEGIBLE_CELLS``; measured in ``tests/benchmarks/bench_density.py``).

The cell is the glyph's advance and row pitch; it may be larger than the font's own cell (the
spacing is split around the glyph), which is how wider-spaced reference shapes are drawn too.
Both tiers print edge to edge (no padding): misc-fixed glyphs carry their own blank column and
row, and a padding of two pixels costs a whole row of glyphs on a page sized to the patch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from explorer.compaction import image_cost
from explorer.compaction.kinds import ProviderKind

TIERS: tuple[str, ...] = ("dense", "legible")


@dataclass(frozen=True)
class Cell:
    """A tier's glyph cell: the font, the advance and row pitch, and how newlines are marked."""

    font: str
    width: int
    height: int
    spaced_marks: bool = False


DENSE_CELLS: dict[str, Cell] = {
    # A newline mark between spaces reads better, and costs about 3 % of a page: spent where
    # the price leaves room, not at Anthropic, whose 5x8 page has none to spare.
    "anthropic": Cell("5x8", 5, 8),
    "openai": Cell("5x8", 5, 8, spaced_marks=True),
    "gemini": Cell("5x8", 5, 8, spaced_marks=True),
}
LEGIBLE_CELLS: dict[str, Cell] = {
    # 28 px patches: 6x13 glyphs on a 7 px advance carry 8.6 chars a patch-priced token (the
    # bar is 7, set by the best reference). Tesseract reads 6x13 far better than 6x9 glyphs
    # (13.9 chars a token), which missed the reference's Tesseract score; the seventh column
    # keeps a doubled hex digit ("bb", "555") from merging into one for RapidOCR, which read
    # 113 of the sample's 120 hex ids on a 6 px advance and 118 on 7 (bench_ocr_targets).
    "anthropic": Cell("6x13", 7, 13, spaced_marks=True),
    # 512 px tiles: 26.7 chars a token (an 8x13 frame OpenAI halves) needs cells of at most
    # 51 px; 5x8 glyphs with a row of leading (45 px) and spaced marks give 29.3.
    "openai": Cell("5x8", 5, 9, spaced_marks=True),
    # 258 tokens a 768 px tile is cheap enough for 10x20 glyphs at 11 chars a token, still
    # more than an 8x13 frame gets at Gemini's price.
    "gemini": Cell("10x20", 10, 20, spaced_marks=True),
}
DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-4.1",
    "gemini": "gemini-2.5-flash",
}
PADDING = 0


@dataclass(frozen=True)
class PageGeometry:
    """Everything the renderer needs to lay out pages for one provider, model and tier.

    ``page_width`` x ``page_height`` is a full page; ``height_quantum`` is the unit a short
    last page's height is rounded up to (the provider's patch size), so it is cropped to the rows
    it prints without being resampled.
    """

    provider: str
    model: str
    tier: str
    font: str
    page_width: int
    page_height: int
    cell_width: int
    cell_height: int
    height_quantum: int
    padding: int = PADDING
    why: str = ""
    max_columns: int | None = None  # a narrower text column than the page allows
    spaced_marks: bool = False  # newline marks stand between spaces (see snapshot_render)

    @property
    def columns(self) -> int:
        """Glyph cells per row."""
        fit = (self.page_width - 2 * self.padding) // self.cell_width
        return fit if self.max_columns is None else min(fit, self.max_columns)

    @property
    def rows(self) -> int:
        """Rows per full page."""
        return (self.page_height - 2 * self.padding) // self.cell_height

    @property
    def chars_per_page(self) -> int:
        return self.columns * self.rows

    def height_for_rows(self, rows: int) -> int:
        """Height of a page printing ``rows`` rows: hugs them, rounded up to the quantum."""
        if not 0 < rows <= self.rows:
            raise ValueError(f"a page holds 1..{self.rows} rows, not {rows}")
        needed = 2 * self.padding + rows * self.cell_height
        rounded = math.ceil(needed / self.height_quantum) * self.height_quantum
        return min(self.page_height, rounded)

    @property
    def pricing(self) -> image_cost.ImagePricing:
        """The provider's price of one page of this geometry (its rule and source)."""
        return image_cost.pricing_for(self.provider, self.model)

    def cost(self, height: int | None = None) -> int:
        """Input tokens of one page of this geometry (full height unless given)."""
        h = self.page_height if height is None else height
        return self.pricing.tokens(self.page_width, h)


def _anthropic_page(model: str) -> tuple[int, int, int, str]:
    if image_cost.anthropic_is_high_res(model):
        return (
            2576,
            1456,
            28,
            "92x52 patches of 28 px = 4,784 patches: the high-resolution limit (2576 px long "
            "edge, ~3.75 MP) exactly, so the page is read at full size.",
        )
    return (
        1568,
        728,
        28,
        "56x26 patches of 28 px: the long edge is the 1568 px limit and 1.14 MP stays under the "
        "resize threshold, so no downscale (1,523 tokens).",
    )


def _openai_page(model: str) -> tuple[int, int, int, str]:
    if image_cost.openai_family(model) == "patch":
        return (
            2048,
            768,
            32,
            "64x24 patches of 32 px = 1,536, the cap: the largest page billed without a "
            "shrink; every 32 px patch costs the same, so area is all that counts.",
        )
    return (
        2048,
        512,
        32,
        "4x1 tiles of 512 px: fits 2048x2048 and its short side is under 768, so it is not "
        "scaled; the 85-token base is shared by 4 tiles, the most pixels per token of any size.",
    )


def _gemini_page(model: str) -> tuple[int, int, int, str]:
    if image_cost.gemini_is_flat_budget(model):
        side = 2 * image_cost.GEMINI_TILE
        return (
            side,
            side,
            16,
            f"Gemini 3 bills a flat {image_cost.GEMINI_3_BUDGETS['high']:,} tokens an image "
            f"(media resolution high) whatever its size, and reads up to about "
            f"{image_cost.gemini_flat_pixels() / 1e6:.2f} MP (assumed: the older tiles' pixels "
            f"a token); {side}x{side} is the largest square of whole 768 px tiles under that, "
            "so a page carries four times the text of a 768x768 one for the same price.",
        )
    return (
        768,
        768,
        768,
        "768x768 is exactly one 258-token tile: four times the pixels of the largest flat-rate "
        "small image (384x384) for the same price, and no crop or scale is needed to tile it. "
        "A short last page is padded to the full tile: a cropped one is stretched to it and "
        "billed the same.",
    )


_PAGES = {"anthropic": _anthropic_page, "openai": _openai_page, "gemini": _gemini_page}


def page_geometry(provider: ProviderKind | str, model: str | None = None, tier: str = "dense"
                  ) -> PageGeometry:
    """The page geometry for ``provider`` (``anthropic``, ``openai``, ``gemini``), model, tier.

    ``model`` defaults to the provider's entry in ``DEFAULT_MODELS``; it selects the provider's
    pricing family (e.g. OpenAI tile vs patch models, Claude high-resolution models).
    """
    provider = ProviderKind.parse(provider).pricing
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIERS)}")
    name = model or DEFAULT_MODELS[provider]
    width, height, quantum, why = _PAGES[provider](name)
    cell = (DENSE_CELLS if tier == "dense" else LEGIBLE_CELLS)[provider]
    return PageGeometry(
        provider=provider,
        model=name,
        tier=tier,
        font=cell.font,
        page_width=width,
        page_height=height,
        cell_width=cell.width,
        cell_height=cell.height,
        height_quantum=quantum,
        why=why,
        spaced_marks=cell.spaced_marks,
    )
