"""Who a context is for: one value the preview, the ladder, the encoders and ``send`` share (X1).

A :class:`Target` is built once (from the settings, the preferences and the flags, in
``explorer.app.targets``) and carries everything that decides the bytes of a request: the
provider kind, the token-estimate family, the model, the window, the output reserve, the
ladder's threshold, the snapshot tier with its page geometry, the image-cost rule and the
provider's image limits. Whatever builds a context reads it from here, so the preview and
the request cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from explorer.compaction import image_cost
from explorer.compaction.elision import DEFAULT_KEEP_TURNS
from explorer.compaction.estimate import Estimator, Family
from explorer.compaction.kinds import PROVIDER_KINDS, ProviderKind, TargetError
from explorer.compaction.page_geometry import DEFAULT_MODELS, TIERS, PageGeometry, page_geometry
from explorer.compaction.split import PageLike, Renderer
from explorer.tree.model import Message

__all__ = ["DEFAULT_OUTPUT_RESERVE", "DEFAULT_WINDOWS", "MAX_IMAGES", "PROVIDER_KINDS",
           "ImageRule", "ProviderKind", "Redactor", "Target", "TargetError", "image_rule",
           "rule_for"]

# Windows when nothing else says (the settings file names one per provider).
DEFAULT_WINDOWS: dict[ProviderKind, int] = {
    ProviderKind.ANTHROPIC: 200_000,
    ProviderKind.OPENAI: 1_047_576,
    ProviderKind.OPENAI_COMPATIBLE: 8192,
    ProviderKind.GEMINI: 1_048_576,
}
DEFAULT_OUTPUT_RESERVE = 4096

# Images one request may carry, per provider.
#   Anthropic: "up to 100 images" per API request
#     (https://docs.claude.com/en/docs/build-with-claude/vision, "Evaluate image size").
#   OpenAI: "up to 500 individual image inputs per request"
#     (https://platform.openai.com/docs/guides/images-vision, "Image input requirements").
#   Gemini: at most 3,600 image files per request
#     (https://ai.google.dev/gemini-api/docs/image-understanding, "Technical details").
#   OpenAI-compatible servers publish no limit; OpenAI's is assumed.
MAX_IMAGES: dict[str, int] = {"anthropic": 100, "openai": 500, "gemini": 3600}


class Redactor(Protocol):
    """Replaces what must not leave the machine (secrets) in the messages a context is built
    from, listing what it replaced in ``notes``; pages, summaries and bodies are made after it
    ran, so none of them can carry what it removed (SPEC R1)."""

    def __call__(self, messages: Sequence[Message], notes: list[str]) -> list[Message]: ...


@dataclass(frozen=True)
class ImageRule:
    """The image rule a request is priced and encoded by: the provider's price of one image
    (an :class:`image_cost.ImagePricing`, with its source) and its limit of images a request.

    ``detail`` is the detail level the cost assumes; the encoder sends it with every image so
    the provider bills what was estimated.
    """

    pricing: image_cost.ImagePricing
    max_images: int

    @property
    def kind(self) -> ProviderKind:
        return self.pricing.kind

    @property
    def model(self) -> str:
        return self.pricing.model

    @property
    def name(self) -> str:
        return self.pricing.name

    @property
    def source(self) -> str:
        return self.pricing.source

    @property
    def detail(self) -> str | None:
        return self.pricing.detail

    @property
    def key(self) -> str:
        """Names the rule a measured image price was learned against (kind, model, rule)."""
        return f"{self.kind}:{self.model}:{type(self.pricing).__name__}"

    def tokens(self, width: int, height: int) -> int:
        if width <= 0 or height <= 0:
            return 0
        return self.pricing.tokens(width, height)

    def to_dict(self) -> dict[str, Any]:
        return {**self.pricing.to_dict(), "max_images": self.max_images}


def image_rule(pricing: ProviderKind | str, model: str) -> ImageRule:
    """The one image-cost rule for ``pricing``/``model`` (see ``image_cost`` for each source)."""
    price = image_cost.pricing_for(pricing, model)
    return ImageRule(price, MAX_IMAGES[price.kind])


def rule_for(kind: ProviderKind | str, model: str) -> ImageRule:
    """The image rule a request to ``kind``/``model`` is priced and encoded by."""
    k = ProviderKind.parse(kind)
    if k is ProviderKind.OPENAI_COMPATIBLE:  # a local model: OpenAI's default pricing assumed
        return image_rule(k.pricing, DEFAULT_MODELS[k.pricing])
    return image_rule(k.pricing, model or DEFAULT_MODELS[k.pricing])


@dataclass(frozen=True)
class Target:
    """One request's recipient and the ladder's aim; every context builder reads this."""

    kind: ProviderKind
    model: str
    window: int
    output_reserve: int = DEFAULT_OUTPUT_RESERVE
    threshold: float = 0.8
    safety: float = 0.9
    tier: str = "dense"
    vision: bool = True
    keep_turns: int = DEFAULT_KEEP_TURNS
    notes: tuple[str, ...] = field(default=(), compare=False)
    redactor: Redactor | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ProviderKind.parse(self.kind))
        if self.tier not in TIERS:
            raise TargetError(f"unknown tier {self.tier!r}; expected one of {', '.join(TIERS)}")
        if self.window <= self.output_reserve:
            raise TargetError(f"output reserve {self.output_reserve:,} leaves no room in a "
                             f"window of {self.window:,} tokens")

    @classmethod
    def default(cls, kind: ProviderKind | str = ProviderKind.ANTHROPIC, **kw: Any) -> Target:
        """A target with the provider's default model and window (tests, a fresh install)."""
        k = ProviderKind.parse(kind)
        kw.setdefault("model", DEFAULT_MODELS[k.pricing] if k is not
                      ProviderKind.OPENAI_COMPATIBLE else "llama3.2")
        kw.setdefault("window", DEFAULT_WINDOWS[k])
        return cls(k, **kw)

    @property
    def family(self) -> Family:
        return self.kind.family

    @cached_property
    def geometry(self) -> PageGeometry:
        """Pages sized for the provider's pricing of this model, in this tier."""
        pricing = self.kind.pricing
        model = self.model if self.kind is not ProviderKind.OPENAI_COMPATIBLE else None
        return page_geometry(pricing, model, self.tier)

    @cached_property
    def images(self) -> ImageRule:
        return rule_for(self.kind, self.model)

    @property
    def available(self) -> int:
        """The window less the room kept for the answer."""
        return self.window - self.output_reserve

    def estimator(self, path: Sequence[Message] = ()) -> Estimator:
        """A fresh estimator of the target's family, costing images by its rule, corrected by
        the usage ``path`` carries (L7): its text factor, and the per-image price the provider
        measured for this rule, which is then preferred over the rule."""
        est = Estimator(self.family, image_tokens=self.images.tokens, image_key=self.images.key)
        if path:
            est.learn_from_path(path)
        return est

    def renderer(self) -> Renderer | None:
        """Snapshot pages of the target's geometry; ``None`` for a model that cannot see."""
        if not self.vision:
            return None
        geometry = self.geometry

        def render(middle: Sequence[Message]) -> Sequence[PageLike]:
            # drawing pulls in numpy: imported when a page is drawn, not when the window starts
            from explorer.compaction.snapshot_render import render_snapshot

            return render_snapshot(middle, geometry).pages

        return render

    def record(self) -> dict[str, Any]:
        """The target as a compaction record holds it, with how its pages were drawn."""
        g = self.geometry
        return {"provider": self.kind.value, "model": self.model, "window": self.window,
                "output_reserve": self.output_reserve, "threshold": self.threshold,
                "tier": self.tier, "vision": self.vision,
                "page": [g.page_width, g.page_height], "font": g.font,
                "cell": [g.cell_width, g.cell_height], "spaced_marks": g.spaced_marks,
                "image_rule": self.images.to_dict()}

    def same_context(self, params: dict[str, Any]) -> bool:
        """True when a record's parameters were made for a target building the same context."""
        mine = self.record()
        keys = ("provider", "model", "window", "output_reserve", "threshold", "tier", "vision")
        return all(params.get(k) == mine[k] for k in keys)
