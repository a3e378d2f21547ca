"""What a provider bills for one image, in input tokens (SPEC §5, rule L5).

Snapshots pay off only because providers bill an image by its area or at a flat rate, never by
the characters drawn in it. The rules below restate each provider's published pricing; where the
documentation leaves something open, the docstring says what is assumed. Costs are computed for
the image *after* the provider's own downscaling, since that is what is billed.

The formulas are plain functions; what the rest of the program holds is one
:class:`ImagePricing` rule object per provider kind and model (:func:`pricing_for`), which
names its rule, its source and whether that source is the provider's documentation or a
measurement, and answers what an image costs and at what size the provider reads it.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from explorer.compaction.kinds import ProviderKind

PROVIDERS: tuple[ProviderKind, ...] = (ProviderKind.ANTHROPIC, ProviderKind.OPENAI,
                                       ProviderKind.GEMINI)
CHARS_PER_TEXT_TOKEN = 4

# --- Anthropic -----------------------------------------------------------------------------

ANTHROPIC_DOCS = "https://docs.claude.com/en/docs/build-with-claude/vision"
ANTHROPIC_LONG_EDGE = 1568
ANTHROPIC_MAX_PIXELS = 784 * 1568  # largest entry of the documented "not resized" table
ANTHROPIC_PIXELS_PER_TOKEN = 750
ANTHROPIC_HIGH_RES_LONG_EDGE = 2576
ANTHROPIC_PATCH = 28
ANTHROPIC_HIGH_RES_MAX_PATCHES = (2576 // 28) * (1456 // 28)  # 92 x 52 = 4784
ANTHROPIC_HIGH_RES_MODELS: tuple[str, ...] = ("claude-opus-4-7", "claude-opus-4-8")


def anthropic_is_high_res(model: str) -> bool:
    """True for the models assumed to read images at the larger high-resolution limit."""
    return model.lower().startswith(ANTHROPIC_HIGH_RES_MODELS)


# Measured: the billed input tokens of one-image requests grow by ceil(w/28) x ceil(h/28)
# (1280x720 -> 1,196; 1024x1024 -> 1,369; 768x768 -> 784; each plus the same fixed request
# overhead), column ``claude45_tokens`` of this data set; the reference page shapes' measured
# billing follows the same rule.
ANTHROPIC_MEASURED = "https://huggingface.co/datasets/JOHNISKING/image-token-cost"


def anthropic_documented_tokens(width: int, height: int) -> int:
    """The documented approximation: ``(width px * height px) / 750`` after the resize.

    Source: https://docs.claude.com/en/docs/build-with-claude/vision ("Calculate image
    costs"). Kept beside the measured rule so the preview can say how far the two are apart
    (1,523 vs 1,456 tokens for a 1568x728 page).
    """
    w, h = _fit(width, height, ANTHROPIC_LONG_EDGE, ANTHROPIC_MAX_PIXELS)
    return math.ceil(w * h / ANTHROPIC_PIXELS_PER_TOKEN)


def anthropic_seen_size(width: int, height: int, model: str = "") -> tuple[int, int]:
    """The size Claude reads an image at, after its own downscaling."""
    if anthropic_is_high_res(model):
        max_pixels = ANTHROPIC_HIGH_RES_MAX_PATCHES * ANTHROPIC_PATCH**2
        w, h = _fit(width, height, ANTHROPIC_HIGH_RES_LONG_EDGE, max_pixels)
        while _patches(w, h, ANTHROPIC_PATCH) > ANTHROPIC_HIGH_RES_MAX_PATCHES:
            w, h = _fit(w, h, max(w, h) - 1, None)
        return w, h
    return _fit(width, height, ANTHROPIC_LONG_EDGE, ANTHROPIC_MAX_PIXELS)


def anthropic_tokens(width: int, height: int, model: str = "") -> int:
    """Tokens for one image sent to Claude: one per 28x28 px patch of the image it reads.

    Resize (https://docs.claude.com/en/docs/build-with-claude/vision, "Evaluate image size"):
    an image whose long edge exceeds 1568 px, or that exceeds about 1,600 tokens, is first
    scaled down, preserving aspect ratio. The page's table of sizes that are *not* resized goes
    up to 784x1568 (1.23 MP) and includes 1092x1092, so that largest entry is the pixel limit.

    Price: the documentation approximates ``w*h/750``; measured billing counts
    ``ceil(w/28) x ceil(h/28)`` patches (``ANTHROPIC_MEASURED``): that is what is used.

    Assumed for the high-resolution models (``ANTHROPIC_HIGH_RES_MODELS``): the same patches,
    up to a 2576 px long edge and 4,784 patches (2576x1456, about 3.75 MP); larger images are
    downscaled to fit first.
    """
    w, h = anthropic_seen_size(width, height, model)
    return _patches(w, h, ANTHROPIC_PATCH)


# --- OpenAI --------------------------------------------------------------------------------

OPENAI_DOCS = "https://platform.openai.com/docs/guides/images-vision#calculating-costs"
OPENAI_TILE_MODELS: dict[str, tuple[int, int]] = {
    "gpt-4o": (85, 170),
    "gpt-4.1": (85, 170),
    "gpt-4.5": (85, 170),
    "gpt-4o-mini": (2833, 5667),
    "gpt-5": (70, 140),
    "o1": (75, 150),
    "o3": (75, 150),
    "computer-use-preview": (65, 129),
}
OPENAI_PATCH_MODELS: dict[str, float] = {
    "gpt-4.1-mini": 1.62,
    "gpt-4.1-nano": 2.46,
    "o4-mini": 1.72,
    "gpt-5-mini": 1.62,
    "gpt-5-nano": 2.46,
}
OPENAI_PATCH = 32
OPENAI_MAX_PATCHES = 1536
OPENAI_TILE = 512
OPENAI_DEFAULT_MODEL = "gpt-4o"


def _longest_prefix(model: str, table: dict[str, object]) -> str | None:
    hits = [key for key in table if model.lower().startswith(key)]
    return max(hits, key=len) if hits else None


def openai_family(model: str) -> str:
    """``"patch"`` for the 32 px patch models, ``"tile"`` for the 512 px tile models.

    The longest matching prefix decides, so ``gpt-4.1-mini`` is a patch model while ``gpt-4.1``
    is a tile model. Unknown models are assumed to be tile models priced like ``gpt-4o``.
    """
    tile = _longest_prefix(model, dict(OPENAI_TILE_MODELS))
    patch = _longest_prefix(model, dict(OPENAI_PATCH_MODELS))
    if patch is not None and (tile is None or len(patch) > len(tile)):
        return "patch"
    return "tile"


def openai_tile_tokens(width: int, height: int, model: str = "", detail: str = "high") -> int:
    """Tokens for one image under OpenAI's 512 px tile rule (gpt-4o, gpt-4.1, o-series, gpt-5).

    Source: https://platform.openai.com/docs/guides/images-vision#calculating-costs — high detail:
    scale to fit within 2048x2048, then scale so the shortest side is 768 px, count 512 px tiles;
    cost = base + per-tile x tiles (85 + 170 x tiles for gpt-4o / gpt-4.1). Low detail costs the
    base alone. Assumed: images are never scaled *up*, so a shortest side under 768 px is kept.
    """
    key = _longest_prefix(model, dict(OPENAI_TILE_MODELS)) or OPENAI_DEFAULT_MODEL
    base, per_tile = OPENAI_TILE_MODELS[key]
    if detail == "low":
        return base
    w, h = _fit(width, height, 2048, None)
    if min(w, h) > 768:
        scale = 768 / min(w, h)
        w, h = max(1, round(w * scale)), max(1, round(h * scale))
    return base + per_tile * math.ceil(w / OPENAI_TILE) * math.ceil(h / OPENAI_TILE)


def openai_patch_tokens(width: int, height: int, model: str = "gpt-4.1-mini") -> int:
    """Tokens for one image under OpenAI's 32 px patch rule (gpt-4.1-mini/nano, o4-mini, ...).

    Source: https://platform.openai.com/docs/guides/images-vision#calculating-costs — count
    ``ceil(w/32) x ceil(h/32)`` patches; above 1,536 patches the image is shrunk so that it fits
    (the documented two-step shrink that lands on whole patches), capped at 1,536; the patch count
    is multiplied by the model's multiplier (1.62 gpt-4.1-mini and gpt-5-mini, 2.46 gpt-4.1-nano
    and gpt-5-nano, 1.72 o4-mini). Assumed: the product is rounded up; ``detail`` does not apply.
    """
    key = _longest_prefix(model, dict(OPENAI_PATCH_MODELS)) or "gpt-4.1-mini"
    patches = _patches(width, height, OPENAI_PATCH)
    if patches > OPENAI_MAX_PATCHES:
        shrink = math.sqrt(OPENAI_PATCH**2 * OPENAI_MAX_PATCHES / (width * height))
        sw, sh = width * shrink / OPENAI_PATCH, height * shrink / OPENAI_PATCH
        shrink *= min(math.floor(sw) / sw, math.floor(sh) / sh)
        patches = _patches(int(width * shrink), int(height * shrink), OPENAI_PATCH)
    return math.ceil(min(patches, OPENAI_MAX_PATCHES) * OPENAI_PATCH_MODELS[key] - 1e-9)


def openai_tokens(width: int, height: int, model: str = "", detail: str = "high") -> int:
    """Tokens for one image sent to an OpenAI model, by the rule of its family."""
    if openai_family(model) == "patch":
        return openai_patch_tokens(width, height, model)
    return openai_tile_tokens(width, height, model, detail)


# --- Gemini --------------------------------------------------------------------------------

GEMINI_DOCS = "https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens"
GEMINI_MEDIA_RESOLUTION_DOCS = "https://ai.google.dev/gemini-api/docs/media-resolution"
GEMINI_TILE = 768
GEMINI_SMALL = 384
GEMINI_TOKENS_PER_TILE = 258
GEMINI_3_BUDGETS: dict[str, int] = {"low": 280, "medium": 560, "high": 1120, "ultra_high": 2240}
GEMINI_3_MEDIA_RESOLUTION = "high"  # the documented default for images, sent explicitly
# How many pixels a Gemini 3 budget reads is not published. Assumed: as many per token as the
# older 258-token 768 px tile (about 2,286), so "high" (1,120 tokens) reads about 2.56 MP
# and a larger image is scaled down to that area.
GEMINI_PIXELS_PER_TOKEN = GEMINI_TILE**2 / GEMINI_TOKENS_PER_TILE


def gemini_flat_pixels(media_resolution: str = GEMINI_3_MEDIA_RESOLUTION) -> int:
    """The area (assumed, see ``GEMINI_PIXELS_PER_TOKEN``) a Gemini 3 budget reads."""
    return int(GEMINI_3_BUDGETS[media_resolution] * GEMINI_PIXELS_PER_TOKEN)


def gemini_is_flat_budget(model: str) -> bool:
    """True for Gemini 3.x, which bills an image at a flat budget set by media resolution."""
    return model.lower().startswith("gemini-3")


def gemini_tokens(width: int, height: int, model: str = "", media_resolution: str = "high") -> int:
    """Tokens for one image sent to Gemini.

    Source: https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens — Gemini 2.x: an
    image with both dimensions <= 384 px counts 258 tokens; a larger one is cropped and scaled
    into 768x768 tiles, 258 tokens each. The crop is not specified further; assumed here:
    ``ceil(w/768) x ceil(h/768)`` tiles. Gemini 1.5 counts a flat 258 per image.
    Gemini 3.x (https://ai.google.dev/gemini-api/docs/media-resolution): a flat budget per image
    set by ``media_resolution`` — low 280, medium 560, high 1,120 (the default for images),
    ultra_high 2,240 — whatever the pixel size; the model resizes the image to that budget.
    """
    name = model.lower()
    if gemini_is_flat_budget(name):
        return GEMINI_3_BUDGETS[media_resolution]
    if name.startswith("gemini-1.5") or (width <= GEMINI_SMALL and height <= GEMINI_SMALL):
        return GEMINI_TOKENS_PER_TILE
    tiles = math.ceil(width / GEMINI_TILE) * math.ceil(height / GEMINI_TILE)
    return GEMINI_TOKENS_PER_TILE * tiles


# --- Rule objects -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ImagePricing(ABC):
    """What one image costs at one provider kind and model, and the size it is read at.

    ``source`` is where the rule comes from; ``basis`` says whether that is the provider's
    documentation, a measurement, or an assumption where the documentation is silent.
    ``detail`` is the detail level (OpenAI) or media resolution (Gemini 3) the cost assumes:
    the encoder sends it with the images, so the provider bills what was estimated.
    """

    kind: ProviderKind
    model: str
    name: ClassVar[str] = ""
    source: ClassVar[str] = ""
    basis: ClassVar[str] = "documented"
    detail: ClassVar[str | None] = None

    @abstractmethod
    def tokens(self, width: int, height: int) -> int:
        """Tokens billed for one image of this size."""

    @abstractmethod
    def seen_size(self, width: int, height: int) -> tuple[int, int]:
        """The size the provider reads the image at (after its own resizing)."""

    def is_resampled(self, width: int, height: int) -> bool:
        """True when the provider would not read the image at its own pixel size."""
        return self.seen_size(width, height) != (width, height)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "basis": self.basis,
                "detail": self.detail}


@dataclass(frozen=True)
class AnthropicPatches(ImagePricing):
    name = "28 px patches, ceil(w/28)·ceil(h/28), after fitting 1568 px and 1.23 MP"
    source = ANTHROPIC_MEASURED
    basis = "measured"

    def tokens(self, width: int, height: int) -> int:
        return anthropic_tokens(width, height, self.model)

    def seen_size(self, width: int, height: int) -> tuple[int, int]:
        return anthropic_seen_size(width, height, self.model)


@dataclass(frozen=True)
class AnthropicHighRes(AnthropicPatches):
    name = "28 px patches up to 2576 px and 4,784 patches (high-resolution model)"
    source = ANTHROPIC_DOCS
    basis = "assumed"


@dataclass(frozen=True)
class OpenAITiles(ImagePricing):
    name = "base + per-tile × 512 px tiles (high detail)"
    source = OPENAI_DOCS
    detail = "high"

    def tokens(self, width: int, height: int) -> int:
        return openai_tile_tokens(width, height, self.model, "high")

    def seen_size(self, width: int, height: int) -> tuple[int, int]:
        w, h = _fit(width, height, 2048, None)
        return _fit(w, h, max(w, h) * 768 // min(w, h), None) if min(w, h) > 768 else (w, h)


@dataclass(frozen=True)
class OpenAIPatches(ImagePricing):
    name = "32 px patches × the model's multiplier, at most 1,536"
    source = OPENAI_DOCS
    detail = "high"  # ignored by patch models, sent so a tile model behind a proxy bills alike

    def tokens(self, width: int, height: int) -> int:
        return openai_patch_tokens(width, height, self.model)

    def seen_size(self, width: int, height: int) -> tuple[int, int]:
        return _fit(width, height, max(width, height), OPENAI_PATCH**2 * OPENAI_MAX_PATCHES)


@dataclass(frozen=True)
class GeminiTiles(ImagePricing):
    name = "258 per 768 px tile (258 flat up to 384x384)"
    source = GEMINI_DOCS

    def tokens(self, width: int, height: int) -> int:
        return gemini_tokens(width, height, self.model)

    def seen_size(self, width: int, height: int) -> tuple[int, int]:
        """The crop-and-scale of an image that is not whole 768 px tiles is undocumented; it is
        assumed scaled to fill its tiles (so a short page is stretched: pad it instead)."""
        if (width <= GEMINI_SMALL and height <= GEMINI_SMALL) or (
            width % GEMINI_TILE == 0 and height % GEMINI_TILE == 0
        ):
            return width, height
        return (GEMINI_TILE * math.ceil(width / GEMINI_TILE),
                GEMINI_TILE * math.ceil(height / GEMINI_TILE))


@dataclass(frozen=True)
class GeminiFlat(ImagePricing):
    name = "flat 1,120 tokens an image (media resolution high)"
    source = GEMINI_MEDIA_RESOLUTION_DOCS
    detail = GEMINI_3_MEDIA_RESOLUTION

    def tokens(self, width: int, height: int) -> int:
        return GEMINI_3_BUDGETS[GEMINI_3_MEDIA_RESOLUTION]

    def seen_size(self, width: int, height: int) -> tuple[int, int]:
        return _fit(width, height, max(width, height), gemini_flat_pixels())


def pricing_for(kind: ProviderKind | str, model: str) -> ImagePricing:
    """The image rule for ``kind``/``model`` (an OpenAI-compatible server is priced as OpenAI).

    An unknown kind is a clear error naming the known ones.
    """
    k = ProviderKind.parse(kind).pricing
    if k is ProviderKind.ANTHROPIC:
        return (AnthropicHighRes if anthropic_is_high_res(model) else AnthropicPatches)(k, model)
    if k is ProviderKind.OPENAI:
        return (OpenAIPatches if openai_family(model) == "patch" else OpenAITiles)(k, model)
    return (GeminiFlat if gemini_is_flat_budget(model) else GeminiTiles)(k, model)


# --- By kind and model (the rule objects above do the work) --------------------------------


def page_cost(provider: ProviderKind | str, model: str, width: int, height: int) -> int:
    """Input tokens one ``width`` x ``height`` image costs at ``provider``/``model``."""
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    return pricing_for(provider, model).tokens(width, height)


def seen_size(provider: ProviderKind | str, model: str, width: int, height: int
              ) -> tuple[int, int]:
    """The size the provider reads an image at, after its own downscaling."""
    return pricing_for(provider, model).seen_size(width, height)


def is_resampled(provider: ProviderKind | str, model: str, width: int, height: int) -> bool:
    """True when the provider would not read the image at its own pixel size."""
    return pricing_for(provider, model).is_resampled(width, height)


def text_tokens(chars: int) -> int:
    """The usual estimate of what ``chars`` characters cost as text: one token per 4 chars."""
    return math.ceil(chars / CHARS_PER_TEXT_TOKEN)


def savings_ratio(provider: str, model: str, width: int, height: int, chars: int) -> float:
    """How many times cheaper ``chars`` characters are as one image than as text (L5)."""
    return text_tokens(chars) / page_cost(provider, model, width, height)


def _patches(width: int, height: int, patch: int) -> int:
    return math.ceil(width / patch) * math.ceil(height / patch)


def _fit(width: int, height: int, long_edge: int, max_pixels: int | None) -> tuple[int, int]:
    """Downscale (never upscale) to a long edge and pixel count limit, keeping the aspect."""
    scale = min(1.0, long_edge / max(width, height))
    if max_pixels is not None:
        scale = min(scale, math.sqrt(max_pixels / (width * height)))
    if scale >= 1.0:
        return width, height
    return max(1, math.floor(width * scale)), max(1, math.floor(height * scale))
