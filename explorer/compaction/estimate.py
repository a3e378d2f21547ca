"""Heuristic token counts per provider family, corrected by what providers measured.

No tokenizer is shipped (no downloads, no network), so text is costed by
characters-per-token ratios over the counts of :mod:`text_units`: plain ASCII words,
ASCII punctuation and non-ASCII characters each have their own ratio. The
:class:`Estimator` then learns from measured counts (L7): a correction factor on the
heuristic and a fixed overhead for what the path does not hold (a hidden system
prompt, tool schemas).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Literal

from explorer.compaction import image_cost
from explorer.tree.model import Message, Part, Usage
from explorer.tree.text_units import image_size as image_size  # re-exported
from explorer.tree.text_units import text_units

Family = Literal["anthropic", "openai", "gemini", "generic"]
FAMILIES: tuple[Family, ...] = ("anthropic", "openai", "gemini", "generic")
ImageCost = Callable[[int, int], int]

UNKNOWN_IMAGE_SIDE = 1000  # assumed side of an image whose header cannot be read


def anthropic_image_tokens(width: int, height: int) -> int:
    """Anthropic's published rule, the one ``image_cost`` keeps with its source; 0 if empty."""
    return image_cost.anthropic_tokens(width, height) if width > 0 and height > 0 else 0


@dataclass(frozen=True)
class FamilyRules:
    """Ratios and overheads of one tokenizer family (tuned on English prose and code)."""

    word_chars_per_token: float
    punct_chars_per_token: float
    non_ascii_chars_per_token: float
    message_overhead: int
    part_overhead: int
    tool_use_overhead: int
    tool_result_overhead: int


RULES: dict[Family, FamilyRules] = {
    "anthropic": FamilyRules(3.8, 1.6, 1.0, 4, 2, 12, 8),
    "openai": FamilyRules(4.2, 1.8, 1.4, 4, 1, 10, 6),
    "gemini": FamilyRules(4.2, 1.8, 1.4, 4, 1, 10, 6),
    "generic": FamilyRules(3.5, 1.5, 1.0, 5, 2, 12, 8),
}


@dataclass(frozen=True)
class Overflow:
    """A provider's "too long" rejection: what it measured and its maximum."""

    measured: int
    maximum: int | None


_OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"prompt is too long:\s*([\d,]+)\s*tokens\s*>\s*([\d,]+)"),
    re.compile(r"maximum context length is\s*([\d,]+)\s*tokens.*?resulted in\s*([\d,]+)", re.S),
    re.compile(r"limit of\s*([\d,]+)\s*tokens.*?resulted in\s*([\d,]+)", re.S),
    re.compile(r"input token count \(([\d,]+)\) exceeds the maximum[^(]*\(([\d,]+)\)"),
)


def parse_overflow(message: str) -> Overflow | None:
    """Read the measured count out of a provider's context-overflow error text."""
    for i, pattern in enumerate(_OVERFLOW_PATTERNS):
        m = pattern.search(message)
        if not m:
            continue
        a, b = (int(g.replace(",", "")) for g in m.groups())
        # Anthropic and Gemini state "measured > maximum"; OpenAI states the maximum first.
        return Overflow(measured=b, maximum=a) if i in (1, 2) else Overflow(a, b)
    return None


def measured_prompt(usage: Usage | None, family: Family = "anthropic") -> int | None:
    """Prompt tokens a provider measured for one response.

    Anthropic reports cached input apart from ``input_tokens``, so the prompt is
    their sum; the other families count cached input inside ``input_tokens``.
    """
    if usage is None or usage.input_tokens is None:
        return None
    if family in ("anthropic", "generic"):
        return usage.input_tokens + (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
    return usage.input_tokens


REQUEST_KEY = "request"  # on an answer: the text and image tokens its request carried
IMAGE_PRICE_KEY = "image_price"  # on an answer: the per-image price its usage showed
MIN_IMAGE_SHARE = 0.25  # of the measured prompt, for a request to say what an image costs
IMAGE_RATIO_LIMITS = (0.5, 2.0)


def image_price_ratio(measured: int, text_tokens: int, rule_tokens: int) -> float | None:
    """What the provider's count says an image costs, over what the rule says: the measured
    prompt less its (corrected) text, over the images' rule price. ``None`` when images are too
    small a share of the prompt for the difference to mean anything."""
    if rule_tokens <= 0 or measured <= 0 or rule_tokens < MIN_IMAGE_SHARE * measured:
        return None
    low, high = IMAGE_RATIO_LIMITS
    return min(high, max(low, (measured - text_tokens) / rule_tokens))


@dataclass
class Estimator:
    """Token estimates for one provider family that learn from measured counts.

    ``estimate = overhead + factor * raw``: ``factor`` corrects the heuristic
    (an exponentially weighted ratio, clamped), ``overhead`` holds what requests
    carry beyond the path.
    """

    family: Family = "anthropic"
    image_tokens: ImageCost = anthropic_image_tokens
    factor: float = 1.0
    overhead: int = 0
    weight: float = 0.5
    min_factor: float = 0.5
    max_factor: float = 3.0
    observations: int = 0
    history: list[tuple[int, int]] = field(default_factory=list)
    image_key: str = ""  # the rule an image price learned from usage must have been made for
    image_factor: float = 1.0  # the provider's measured per-image price over the rule's
    image_observations: int = 0

    @property
    def rules(self) -> FamilyRules:
        return RULES[self.family]

    # --- raw heuristic -------------------------------------------------------------
    def text_tokens(self, text: str) -> int:
        """Uncorrected tokens of a string."""
        return self.units_tokens(*text_units(text))

    def units_tokens(self, words: int, punct: int, non_ascii: int) -> int:
        """Uncorrected tokens of a text from its counts (``text_units``, or as stored)."""
        r = self.rules
        cost = (
            words / r.word_chars_per_token
            + punct / r.punct_chars_per_token
            + non_ascii / r.non_ascii_chars_per_token
        )
        return math.ceil(cost)

    def image_part_tokens(self, data: bytes | None) -> int:
        size = image_size(data) if data else None
        w, h = size or (UNKNOWN_IMAGE_SIDE, UNKNOWN_IMAGE_SIDE)
        return self.image_price(w, h)

    def image_price(self, width: int, height: int) -> int:
        """One image's tokens: the rule's price, or what the provider's usage measured."""
        base = self.image_tokens(width, height)
        return base if self.image_observations == 0 else math.ceil(base * self.image_factor)

    @property
    def image_measured(self) -> bool:
        """True when image prices follow what the provider measured, not the rule alone."""
        return self.image_observations > 0

    def raw_part(self, part: Part) -> int:
        r = self.rules
        if part.kind == "image":
            return r.part_overhead + self.image_part_tokens(part.data)
        cost = self.text_tokens(part.text)
        if part.kind == "tool_use":
            return cost + r.tool_use_overhead + self.text_tokens(part.tool_name or "")
        if part.kind == "tool_result":
            return cost + r.tool_result_overhead
        return cost + r.part_overhead

    def raw_message(self, message: Message) -> int:
        return self.rules.message_overhead + sum(self.raw_part(p) for p in message.parts)

    def raw(self, messages: Iterable[Message]) -> int:
        return sum(self.raw_message(m) for m in messages)

    def raw_split(self, messages: Iterable[Message]) -> tuple[int, int]:
        """(heuristic text tokens, image tokens): only the first is a guess to correct."""
        text = image = 0
        for m in messages:
            text += self.rules.message_overhead
            for p in m.parts:
                if p.kind == "image":
                    image += self.raw_part(p)
                else:
                    text += self.raw_part(p)
        return text, image

    # --- corrected estimates -------------------------------------------------------
    def correct(self, raw: int) -> int:
        """Apply the learned factor to heuristic (text) tokens."""
        return math.ceil(raw * self.factor)

    def message(self, message: Message) -> int:
        text, image = self.raw_split([message])
        return self.correct(text) + image

    def part(self, part: Part) -> int:
        raw = self.raw_part(part)
        return raw if part.kind == "image" else self.correct(raw)

    def estimate(self, messages: Iterable[Message], *, with_overhead: bool = True) -> int:
        """Corrected tokens of a request made of ``messages``.

        Images follow the provider's published rule and are not scaled; the
        factor corrects the character heuristic only.
        """
        text, image = self.raw_split(messages)
        return self.correct(text) + image + (self.overhead if with_overhead else 0)

    # --- learning ------------------------------------------------------------------
    def observe(
        self, raw: int, measured: int, *, images: int = 0, weight: float | None = None
    ) -> None:
        """Fold one (raw text estimate, measured) pair into the factor and the overhead.

        ``images`` is the image part of the measured request, known exactly.
        The overhead then absorbs what the factor cannot explain, so the
        corrected estimate of the observed request matches the measurement.
        """
        if raw <= 0 or measured <= 0:
            return
        self._fold_ratio(max(measured - self.overhead - images, 1) / raw, weight)
        self.overhead = max(0, measured - self.correct(raw) - images)
        self._remember(raw, measured)

    def learn_from_path(self, path: Sequence[Message]) -> int:
        """Learn from the prompt counts stored on the path's assistant messages.

        Successive measurements give the factor from their growth (which the
        hidden overhead does not affect); the last one then sets the overhead.
        An answer that records the request it was sent (after a compaction, not the path
        before it) is compared with that request; the per-image prices the answers' usage
        showed for this estimator's rule are learned first. Returns the number of
        measurements used.
        """
        self._learn_image_price(path)
        counts = []
        sent: dict[int, tuple[int, int]] = {}
        for k, m in enumerate(path):
            measured = measured_prompt(m.usage, self.family) if m.role == "assistant" else None
            counts.append((*self.raw_split([m]), measured))
            recorded = self._sent(m) if measured else None
            if recorded is not None:
                sent[k] = recorded
        return self.learn_from_counts(counts, sent)

    def learn_from_counts(self, counts: Iterable[tuple[int, int, int | None]],
                          sent: dict[int, tuple[int, int]] | None = None) -> int:
        """:meth:`learn_from_path` from each message's (raw text, image tokens, measured
        prompt or None), for a caller that keeps those per message (the context figure);
        ``sent`` gives, by message index, the (text, image) of the request an answer records."""
        pairs: list[tuple[int, int, int]] = []
        text = image = 0
        for k, (t, i, measured) in enumerate(counts):
            if measured:
                st, si = (sent or {}).get(k, (text, image))
                pairs.append((st, si, measured))
            text, image = text + t, image + i
        if not pairs:
            return 0
        # Requests made mostly of images say little about text: the text factor and the
        # overhead come from the others when there are any (the image price is learned apart).
        quiet = [p for p in pairs if p[1] < MIN_IMAGE_SHARE * p[2]] or pairs
        for (r0, i0, m0), (r1, i1, m1) in pairwise(quiet):
            if r1 - r0 >= 50 and m1 - i1 > m0 - i0:
                self._fold_ratio(((m1 - i1) - (m0 - i0)) / (r1 - r0))
        raw_last, image_last, measured_last = quiet[-1]
        if self.observations == 0:
            self.observe(raw_last, measured_last, images=image_last)
        else:
            self.overhead = max(0, measured_last - self.correct(raw_last) - image_last)
            self._remember(raw_last, measured_last)
        return len(pairs)

    def _sent(self, answer: Message) -> tuple[int, int] | None:
        """(text, image) of the request an answer records it was sent."""
        return self.sent_from_record(answer.source_meta.get(REQUEST_KEY))

    def sent_from_record(self, rec: object) -> tuple[int, int] | None:
        """(text, image) of a stored request record (``REQUEST_KEY`` on an answer)."""
        if not isinstance(rec, dict) or not isinstance(rec.get("text"), int):
            return None
        rule = int(rec.get("image_rule_tokens", 0))
        image = rule if self.image_observations == 0 else math.ceil(rule * self.image_factor)
        return int(rec["text"]), image

    def _learn_image_price(self, path: Sequence[Message]) -> None:
        """Fold the per-image prices the answers' usage showed for this estimator's rule."""
        for m in path:
            if m.role == "assistant":
                self.learn_image_price_record(m.source_meta.get(IMAGE_PRICE_KEY))

    def learn_image_price_record(self, price: object) -> None:
        """Fold one stored per-image price (``IMAGE_PRICE_KEY``) if it is for this rule."""
        if not isinstance(price, dict) or not self.image_key:
            return
        ratio = price.get("ratio")
        if price.get("key") == self.image_key and isinstance(ratio, (int, float)):
            self.fold_image_ratio(float(ratio))

    def fold_image_ratio(self, ratio: float) -> None:
        """One measured (per-image price / rule price); a running geometric mean."""
        low, high = IMAGE_RATIO_LIMITS
        ratio = min(high, max(low, ratio))
        w = 1.0 if self.image_observations == 0 else self.weight
        self.image_factor = math.exp((1 - w) * math.log(self.image_factor) + w * math.log(ratio))
        self.image_observations += 1

    def learn_from_rejection(self, messages: Sequence[Message], measured: int | str) -> int | None:
        """Trust a rejection's count fully: it measured exactly this request."""
        if isinstance(measured, str):
            overflow = parse_overflow(measured)
            if overflow is None:
                return None
            measured = overflow.measured
        text, image = self.raw_split(messages)
        self.observe(text, measured, images=image, weight=1.0)
        return measured

    def _fold_ratio(self, ratio: float, weight: float | None = None) -> None:
        w = self.weight if weight is None else weight
        if self.observations == 0:
            w = 1.0
        log_f = (1 - w) * math.log(self.factor) + w * math.log(ratio)
        self.factor = min(self.max_factor, max(self.min_factor, math.exp(log_f)))
        self.observations += 1

    def _remember(self, raw: int, measured: int) -> None:
        self.history.append((raw, measured))
        del self.history[:-50]

    def to_dict(self) -> dict[str, object]:
        return {
            "family": self.family,
            "factor": round(self.factor, 4),
            "overhead": self.overhead,
            "observations": self.observations,
            "image_factor": round(self.image_factor, 4),
            "image_observations": self.image_observations,
        }
