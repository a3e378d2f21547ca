"""Page geometry: sized so the provider bills pages without resampling them (SPEC §5, L5)."""

from __future__ import annotations

import math

import pytest

from explorer.compaction import fonts
from explorer.compaction import image_cost as ic
from explorer.compaction.page_geometry import TIERS, PageGeometry, page_geometry

MODELS = [
    ("anthropic", "claude-sonnet-4-5"),
    ("anthropic", "claude-opus-4-7"),
    ("openai", "gpt-4.1"),
    ("openai", "gpt-4o"),
    ("openai", "gpt-4.1-mini"),
    ("gemini", "gemini-2.5-flash"),
    ("gemini", "gemini-3-pro-preview"),
]
ALL = [(p, m, t) for p, m in MODELS for t in TIERS]


def _geometry(provider: str, model: str, tier: str) -> PageGeometry:
    return page_geometry(provider, model, tier)


def test_claude_page_is_56_by_26_patches() -> None:
    g = page_geometry("anthropic", "claude-sonnet-4-5", "dense")
    assert (g.page_width, g.page_height) == (1568, 728)
    assert (g.page_width // 28, g.page_height // 28) == (56, 26)


@pytest.mark.parametrize(("provider", "model", "tier"), ALL)
def test_full_page_is_billed_without_downscaling(provider: str, model: str, tier: str) -> None:
    g = _geometry(provider, model, tier)
    w, h = g.page_width, g.page_height
    if provider == "anthropic" and ic.anthropic_is_high_res(model):
        assert g.cost() == math.ceil(w / 28) * math.ceil(h / 28)
    elif provider == "anthropic":
        assert max(w, h) <= ic.ANTHROPIC_LONG_EDGE and w * h <= ic.ANTHROPIC_MAX_PIXELS
        assert g.cost() == math.ceil(w / 28) * math.ceil(h / 28)
    elif provider == "openai" and ic.openai_family(model) == "patch":
        assert math.ceil(w / 32) * math.ceil(h / 32) <= ic.OPENAI_MAX_PATCHES
    elif provider == "openai":
        assert max(w, h) <= 2048 and min(w, h) <= 768
        assert g.cost() == 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)
    else:
        assert g.cost() in (258, 1120)


@pytest.mark.parametrize(("provider", "model", "tier"), ALL)
def test_page_is_patch_aligned_and_cells_fit(provider: str, model: str, tier: str) -> None:
    g = _geometry(provider, model, tier)
    assert g.page_width % g.height_quantum == 0
    assert g.page_height % g.height_quantum == 0
    assert g.columns * g.cell_width + 2 * g.padding <= g.page_width
    assert g.rows * g.cell_height + 2 * g.padding <= g.page_height
    assert g.why  # the choice is explained


@pytest.mark.parametrize(("provider", "model", "tier"), ALL)
def test_short_page_hugs_its_rows(provider: str, model: str, tier: str) -> None:
    g = _geometry(provider, model, tier)
    for rows in (1, 2, g.rows // 2, g.rows):
        height = g.height_for_rows(rows)
        needed = 2 * g.padding + rows * g.cell_height
        assert needed <= height <= g.page_height
        assert height == g.page_height or height % g.height_quantum == 0
        assert height - needed < g.height_quantum
    assert g.height_for_rows(g.rows) <= g.page_height


def test_height_for_rows_refuses_impossible_counts() -> None:
    g = page_geometry("openai")
    with pytest.raises(ValueError, match="rows"):
        g.height_for_rows(0)
    with pytest.raises(ValueError, match="rows"):
        g.height_for_rows(g.rows + 1)


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_tiers_use_their_cells(provider: str) -> None:
    dense = page_geometry(provider, tier="dense")
    legible = page_geometry(provider, tier="legible")
    assert (dense.font, dense.cell_width, dense.cell_height) == ("5x8", 5, 8)
    # roomier than dense in at least one direction, never tighter in the other
    assert legible.cell_width >= dense.cell_width and legible.cell_height >= dense.cell_height
    assert legible.cell_width * legible.cell_height > dense.cell_width * dense.cell_height
    font = fonts.cell_font(legible.font)
    assert font.cell_width <= legible.cell_width and font.cell_height <= legible.cell_height
    assert dense.chars_per_page > legible.chars_per_page


def test_unknown_provider_or_tier_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown provider"):
        page_geometry("acme")
    with pytest.raises(ValueError, match="unknown tier"):
        page_geometry("openai", tier="huge")


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
def test_L5_full_dense_page_costs_far_less_than_its_characters(provider: str) -> None:
    g = page_geometry(provider, tier="dense")
    ratio = ic.savings_ratio(provider, g.model, g.page_width, g.page_height, g.chars_per_page)
    assert ratio >= 3.0
