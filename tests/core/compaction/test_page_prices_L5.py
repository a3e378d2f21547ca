"""The price of a page: one rule object per provider kind and model, with its source, and
pages sized so each model bills them without resampling (SPEC §5, L5)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from explorer.compaction import image_cost as ic
from explorer.compaction.kinds import ProviderKind
from explorer.compaction.page_geometry import TIERS, page_geometry
from explorer.compaction.snapshot_render import render_snapshot
from explorer.compaction.target import Target, TargetError

MODELS = [
    (ProviderKind.ANTHROPIC, "claude-sonnet-4-5", ic.AnthropicPatches),
    (ProviderKind.ANTHROPIC, "claude-opus-4-7", ic.AnthropicHighRes),
    (ProviderKind.OPENAI, "gpt-4.1", ic.OpenAITiles),
    (ProviderKind.OPENAI, "gpt-4.1-mini", ic.OpenAIPatches),
    (ProviderKind.OPENAI_COMPATIBLE, "gpt-4o", ic.OpenAITiles),
    (ProviderKind.GEMINI, "gemini-2.5-flash", ic.GeminiTiles),
    (ProviderKind.GEMINI, "gemini-3-pro-preview", ic.GeminiFlat),
]


@pytest.mark.parametrize(("kind", "model", "rule"), MODELS)
def test_L5_each_kind_and_model_has_one_rule_object_with_its_source(
    kind: ProviderKind, model: str, rule: type[ic.ImagePricing]
) -> None:
    pricing = ic.pricing_for(kind, model)
    assert type(pricing) is rule
    assert pricing.kind is kind.pricing and pricing.model == model
    assert pricing.source.startswith("https://") and pricing.name
    assert pricing.basis in ("documented", "measured", "assumed")
    assert pricing.to_dict()["source"] == pricing.source
    # a plain string names the same kind: the string API delegates to the rule object
    assert ic.page_cost(kind.value, model, 1000, 700) == pricing.tokens(1000, 700)
    assert ic.seen_size(kind.value, model, 1000, 700) == pricing.seen_size(1000, 700)


def test_an_unknown_kind_is_a_clear_error() -> None:
    with pytest.raises(TargetError, match="unknown provider 'acme'"):
        ic.pricing_for("acme", "m")


def test_L5_a_claude_page_is_priced_by_measured_patches_not_the_area_rule() -> None:
    target = Target.default("anthropic")
    g = target.geometry
    assert (g.page_width, g.page_height) == (1568, 728)
    assert g.cost() == target.images.tokens(1568, 728) == 1456
    assert ic.anthropic_documented_tokens(1568, 728) == 1523  # what the docs' formula says
    assert target.record()["image_rule"]["basis"] == "measured"


@pytest.mark.parametrize("tier", TIERS)
def test_L5_a_short_last_gemini_page_is_padded_to_the_full_tile(tier: str) -> None:
    g = page_geometry("gemini", "gemini-2.5-flash", tier)
    text = "x" * (g.chars_per_page + 3 * g.columns)  # one full page and three rows
    first, last = render_snapshot([("user", 1, text)], g).pages
    assert last.rows == 4
    size = Image.open(io.BytesIO(last.png)).size
    assert size == (768, 768) == (first.width, first.height)
    assert not g.pricing.is_resampled(*size)  # a cropped page would be stretched to the tile
    assert ic.is_resampled("gemini", g.model, 768, 592)
    assert last.image_tokens == first.image_tokens == 258


def test_L5_gemini_3_pages_are_sized_for_its_flat_price() -> None:
    old = page_geometry("gemini", "gemini-2.5-flash", "dense")
    new = page_geometry("gemini", "gemini-3-pro-preview", "dense")
    legible = page_geometry("gemini", "gemini-3-pro-preview", "legible")
    assert new.cost() == legible.cost() == 1120
    assert not new.pricing.is_resampled(new.page_width, new.page_height)
    assert new.page_width * new.page_height <= ic.gemini_flat_pixels()
    # four times the text of a 768x768 page for the same flat price
    assert new.chars_per_page >= 4 * old.chars_per_page
    dense_rate = new.chars_per_page / new.cost()
    legible_rate = legible.chars_per_page / legible.cost()
    assert dense_rate > 50  # was 13 on 768x768 pages
    assert legible_rate > ic.CHARS_PER_TEXT_TOKEN * 2  # was 2.6: dearer than the text itself


def test_L5_every_default_page_beats_its_text_at_each_tier() -> None:
    for kind, model, _ in MODELS:
        for tier in TIERS:
            g = Target(kind, model=model, window=200_000, tier=tier).geometry
            assert g.chars_per_page / g.cost() > ic.CHARS_PER_TEXT_TOKEN, (kind, model, tier)
