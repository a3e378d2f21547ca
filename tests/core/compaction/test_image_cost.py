"""Image token costs restate the providers' published rules (SPEC §5, L5)."""

from __future__ import annotations

import math

import pytest

from explorer.compaction import image_cost as ic


def test_openai_tile_rule_matches_the_documented_examples() -> None:
    assert ic.openai_tokens(1024, 1024, "gpt-4o") == 765  # 768x768 -> 4 tiles
    assert ic.openai_tokens(2048, 4096, "gpt-4o") == 1105  # 768x1536 -> 6 tiles
    assert ic.openai_tokens(4096, 8192, "gpt-4o", detail="low") == 85


def test_openai_tile_prices_differ_by_model() -> None:
    assert ic.openai_tokens(1024, 1024, "gpt-4o-mini") == 2833 + 4 * 5667
    assert ic.openai_tokens(1024, 1024, "gpt-5") == 70 + 4 * 140
    assert ic.openai_tokens(1024, 1024, "o3") == 75 + 4 * 150


def test_openai_small_images_are_not_scaled_up() -> None:
    assert ic.openai_tokens(512, 512, "gpt-4.1") == 85 + 170
    assert ic.openai_tokens(2048, 512, "gpt-4.1") == 85 + 4 * 170


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("gpt-4.1-mini", "patch"),
        ("gpt-4.1-nano-2025-04-14", "patch"),
        ("gpt-4.1", "tile"),
        ("gpt-5-mini", "patch"),
        ("gpt-5", "tile"),
        ("o4-mini", "patch"),
        ("gpt-4o-mini", "tile"),
        ("some-future-model", "tile"),
    ],
)
def test_openai_family_is_decided_by_longest_prefix(model: str, family: str) -> None:
    assert ic.openai_family(model) == family


def test_openai_patch_rule_matches_the_documented_examples() -> None:
    # 1024x1024: 32x32 = 1024 patches; 1800x2400 shrinks to 1056x1408 = 33x44 = 1452 patches.
    assert ic.openai_tokens(1024, 1024, "gpt-4.1-mini") == math.ceil(1024 * 1.62)
    assert ic.openai_tokens(1800, 2400, "gpt-4.1-mini") == math.ceil(1452 * 1.62)
    assert ic.openai_tokens(1024, 1024, "gpt-4.1-nano") == math.ceil(1024 * 2.46)
    assert ic.openai_tokens(1024, 1024, "o4-mini") == math.ceil(1024 * 1.72)


def test_openai_patch_count_is_capped() -> None:
    assert ic.openai_patch_tokens(8000, 8000, "gpt-4.1-mini") <= math.ceil(1536 * 1.62)
    assert ic.openai_patch_tokens(2048, 768, "gpt-4.1-mini") == math.ceil(1536 * 1.62)


def test_L5_anthropic_bills_measured_28px_patches_beside_the_documented_area_rule() -> None:
    # measured: 1280x720 grows a request by 46 x 26 = 1,196 tokens (ANTHROPIC_MEASURED)
    assert ic.anthropic_tokens(1280, 720) == 46 * 26
    assert ic.anthropic_tokens(1568, 728) == 56 * 26 == 1456
    assert ic.anthropic_documented_tokens(1568, 728) == math.ceil(1568 * 728 / 750) == 1523
    assert ic.anthropic_tokens(1092, 1092) == 39 * 39
    assert ic.anthropic_documented_tokens(1092, 1092) == 1590
    assert ic.anthropic_tokens(200, 200) == 8 * 8


def test_anthropic_downscales_before_counting() -> None:
    # Long edge 3136 halves to 1568x100.
    assert ic.anthropic_tokens(3136, 200) == 56 * 4
    big = ic.anthropic_tokens(4000, 3000)
    assert big <= math.ceil(ic.ANTHROPIC_MAX_PIXELS / 28**2) + 60  # the edge patches round up
    assert big < math.ceil(4000 * 3000 / 750)


def test_anthropic_high_resolution_models_use_28px_patches() -> None:
    assert ic.anthropic_is_high_res("claude-opus-4-7")
    assert not ic.anthropic_is_high_res("claude-sonnet-4-5")
    assert ic.anthropic_tokens(2576, 1456, "claude-opus-4-7") == 4784
    assert ic.anthropic_tokens(28 * 10, 28 * 5 + 1, "claude-opus-4-7") == 10 * 6
    assert ic.anthropic_tokens(10000, 10000, "claude-opus-4-7") <= 4784


def test_gemini_tiling_rule() -> None:
    assert ic.gemini_tokens(1024, 1024, "gemini-2.5-flash") == 1032  # 4 tiles
    assert ic.gemini_tokens(384, 384, "gemini-2.5-flash") == 258
    assert ic.gemini_tokens(385, 100, "gemini-2.5-flash") == 258  # one 768 tile
    assert ic.gemini_tokens(1536, 768, "gemini-2.0-flash") == 2 * 258
    assert ic.gemini_tokens(4000, 4000, "gemini-1.5-pro") == 258


def test_gemini_3_is_a_flat_budget_per_image() -> None:
    assert ic.gemini_tokens(100, 100, "gemini-3-pro-preview") == 1120
    assert ic.gemini_tokens(3000, 3000, "gemini-3-flash-preview") == 1120
    assert ic.gemini_tokens(3000, 3000, "gemini-3-pro", media_resolution="low") == 280


def test_page_cost_dispatches_and_refuses_nonsense() -> None:
    assert ic.page_cost("openai", "gpt-4o", 1024, 1024) == 765
    assert ic.page_cost("anthropic", "claude-sonnet-4-5", 1092, 1092) == 39 * 39
    assert ic.page_cost("gemini", "gemini-2.5-pro", 1024, 1024) == 1032
    with pytest.raises(ValueError, match="unknown provider"):
        ic.page_cost("acme", "m", 10, 10)
    with pytest.raises(ValueError, match="positive"):
        ic.page_cost("openai", "gpt-4o", 0, 10)


def test_text_tokens_and_savings_ratio() -> None:
    assert ic.text_tokens(0) == 0
    assert ic.text_tokens(9) == 3
    assert ic.savings_ratio("openai", "gpt-4o", 1024, 1024, 765 * 4 * 2) == pytest.approx(2.0)


@pytest.mark.parametrize("rule", [ic.anthropic_tokens, ic.openai_tile_tokens, ic.gemini_tokens])
def test_every_rule_cites_its_source(rule: object) -> None:
    doc = getattr(rule, "__doc__", "") or ""
    assert "https://" in doc
