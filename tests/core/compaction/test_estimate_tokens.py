"""Token estimates per provider family, image costs from headers, and learning (L7)."""

from __future__ import annotations

import copy
import json
import re
import string
from dataclasses import replace

import pytest
from coding_session import coding_session, jpeg_bytes, png_bytes
from hypothesis import given
from hypothesis import strategies as st

from explorer.compaction import image_cost
from explorer.compaction.estimate import (
    Estimator,
    anthropic_image_tokens,
    image_size,
    measured_prompt,
    parse_overflow,
)
from explorer.tree.model import Message, Part, Usage, text_message
from explorer.tree.text_units import text_units

PROSE = (
    "The migration adds a column to the messages table and fills it from the source metadata. "
    "Nothing is deleted, and the old column stays until the next release so that a downgrade "
    "still reads the file. We keep the ids opaque, as the rest of the store expects. "
) * 20
CODE = json.dumps(
    [{"id": i, "path": f"src/mod_{i}.py", "ok": i % 2 == 0, "tags": ["a", "b"]} for i in range(60)]
)
CJK = "会話の文脈が長くなると、モデルは古い部分を忘れてしまいます。" * 20


def test_prose_is_about_three_and_a_half_chars_per_token_for_anthropic() -> None:
    tokens = Estimator("anthropic").text_tokens(PROSE)
    assert 3.0 <= len(PROSE) / tokens <= 4.2


def test_code_and_json_cost_more_tokens_per_char_than_prose() -> None:
    est = Estimator("anthropic")
    assert len(CODE) / est.text_tokens(CODE) < len(PROSE) / est.text_tokens(PROSE) - 0.5


def test_non_latin_script_is_counted_apart_and_is_densest() -> None:
    words, punct, non_ascii = text_units(CJK)
    assert non_ascii == len(CJK) and words == 0 and punct == 0
    assert Estimator("anthropic").text_tokens(CJK) >= 0.7 * len(CJK)


def test_families_differ_openai_counts_fewer_prose_tokens_than_anthropic() -> None:
    assert Estimator("openai").text_tokens(PROSE) < Estimator("anthropic").text_tokens(PROSE)
    assert Estimator("generic").text_tokens(PROSE) >= Estimator("anthropic").text_tokens(PROSE)


def test_whitespace_runs_count_once() -> None:
    words, _, _ = text_units("a" + " " * 40 + "b")
    assert words == 3


def test_L7_image_tokens_are_not_scaled_by_the_text_correction() -> None:
    est = Estimator(factor=2.0)
    part = Part("image", data=png_bytes(750, 100), media_type="image/png")
    assert est.part(part) == est.raw_part(part)
    assert est.part(Part("text", PROSE)) == est.correct(est.raw_part(Part("text", PROSE)))


def test_image_cost_reads_png_and_jpeg_headers() -> None:
    assert image_size(png_bytes(1000, 750)) == (1000, 750)
    assert image_size(jpeg_bytes(640, 480)) == (640, 480)
    est = Estimator("anthropic")
    part = Part("image", data=png_bytes(1000, 750), media_type="image/png")
    assert est.raw_part(part) == est.rules.part_overhead + 36 * 27  # 28 px patches


def test_anthropic_rule_scales_large_images_down_first() -> None:
    assert anthropic_image_tokens(756, 112) == 27 * 4
    big = anthropic_image_tokens(4000, 3000)
    assert big <= image_cost.ANTHROPIC_MAX_PIXELS // 28**2 + 60  # the one rule, after the fit
    assert big == anthropic_image_tokens(8000, 6000)
    assert anthropic_image_tokens(3136, 100) == anthropic_image_tokens(1568, 50)
    assert anthropic_image_tokens(0, 10) == 0


def test_X1_the_estimator_and_the_page_prices_use_one_anthropic_rule() -> None:
    """A 1568x784 page once cost 1,534 tokens here and 1,640 in ``image_cost``; both now
    follow the measured 28 px patches."""
    for w, h in ((1568, 784), (1568, 728), (4000, 3000), (200, 100)):
        assert Estimator().image_tokens(w, h) == image_cost.anthropic_tokens(w, h)
    assert anthropic_image_tokens(1568, 784) == 56 * 28


def test_image_cost_is_pluggable() -> None:
    est = Estimator("openai", image_tokens=lambda w, h: 85 + w // 100)
    part = Part("image", data=png_bytes(1200, 300), media_type="image/png")
    assert est.raw_part(part) == est.rules.part_overhead + 85 + 12


def test_unreadable_image_bytes_get_a_fallback_cost_not_a_crash() -> None:
    est = Estimator()
    part = Part("image", data=b"not an image at all", media_type="image/png")
    assert image_size(b"not an image at all") is None
    assert est.raw_part(part) == est.rules.part_overhead + anthropic_image_tokens(1000, 1000)


def test_message_overhead_and_tool_use_overhead() -> None:
    est = Estimator()
    empty = Message(id=1, parent_id=None, role="user", parts=[])
    assert est.raw_message(empty) == est.rules.message_overhead
    args = '{"command": "ls -la"}'
    as_text = est.raw_part(Part("text", args))
    as_call = est.raw_part(Part("tool_use", args, tool_name="Bash", tool_use_id="t1"))
    assert as_call > as_text


def test_estimate_is_additive_over_messages() -> None:
    est = Estimator()
    path = coding_session()
    assert est.estimate(path) == sum(est.raw_message(m) for m in path)


def test_L7_rejection_corrects_the_estimator_to_the_measured_count() -> None:
    est = Estimator()
    path = coding_session()
    text, images = est.raw_split(path)
    assert images > 0 and text + images == est.estimate(path)
    measured = int(text * 1.4) + images
    assert est.learn_from_rejection(path, measured) == measured
    assert est.estimate(path) == measured
    assert est.factor == pytest.approx(1.4, rel=0.01)


def test_L7_rejection_text_is_parsed_for_the_count() -> None:
    est = Estimator()
    path = coding_session()
    raw = est.estimate(path)
    text = f"prompt is too long: {raw * 2} tokens > 200000 maximum"
    assert est.learn_from_rejection(path, text) == raw * 2
    assert est.estimate(path) == raw * 2
    assert Estimator().learn_from_rejection(path, "rate limited") is None


def test_L7_factor_is_clamped_and_the_rest_goes_to_overhead() -> None:
    est = Estimator()
    path = coding_session()
    text, images = est.raw_split(path)
    est.observe(text, text * 10 + images, images=images)
    assert est.factor == est.max_factor
    assert est.estimate(path) == text * 10 + images
    assert est.overhead > 0


def _measured_path(factor: float, hidden: int) -> list[Message]:
    """The coding session with usage a 'true' tokenizer would have reported."""
    est = Estimator()
    out: list[Message] = []
    prefix = images = 0
    for m in coding_session():
        if m.role == "assistant":
            m = replace(m, usage=Usage(input_tokens=int(hidden + factor * prefix + images)))
        out.append(m)
        text, image = est.raw_split([m])
        prefix, images = prefix + text, images + image
    return out


def test_L7_learns_factor_and_hidden_overhead_from_stored_usage() -> None:
    path = _measured_path(1.3, 5000)
    est = Estimator()
    assert est.learn_from_path(path) == sum(1 for m in path if m.role == "assistant")
    assert est.factor == pytest.approx(1.3, rel=0.05)
    assert est.overhead == pytest.approx(5000, rel=0.15)
    text, images = Estimator().raw_split(path)
    truth = 5000 + 1.3 * text + images
    assert est.estimate(path) == pytest.approx(truth, rel=0.03)


def test_learning_without_usage_changes_nothing() -> None:
    est = Estimator()
    assert est.learn_from_path([text_message(1, None, "user", "hi")]) == 0
    assert (est.factor, est.overhead, est.observations) == (1.0, 0, 0)


def test_estimating_and_learning_leave_the_path_unchanged() -> None:
    path = _measured_path(1.1, 100)
    before = copy.deepcopy(path)
    est = Estimator()
    est.learn_from_path(path)
    est.estimate(path)
    assert path == before


@pytest.mark.parametrize(
    ("text", "measured", "maximum"),
    [
        ("prompt is too long: 215,034 tokens > 200000 maximum", 215034, 200000),
        (
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 131072 tokens. Please reduce the length of the messages.",
            131072,
            128000,
        ),
        (
            "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted "
            "in 300123 tokens.",
            300123,
            272000,
        ),
        (
            "The input token count (1200000) exceeds the maximum number of tokens allowed "
            "(1048576).",
            1200000,
            1048576,
        ),
    ],
)
def test_L7_overflow_messages_of_each_family_are_parsed(
    text: str, measured: int, maximum: int
) -> None:
    overflow = parse_overflow(text)
    assert overflow is not None
    assert (overflow.measured, overflow.maximum) == (measured, maximum)


def test_measured_prompt_adds_cached_input_for_anthropic_only() -> None:
    usage = Usage(input_tokens=3, cache_read_tokens=15000, cache_write_tokens=2000)
    assert measured_prompt(usage, "anthropic") == 17003
    assert measured_prompt(usage, "openai") == 3
    assert measured_prompt(None) is None
    assert measured_prompt(Usage(output_tokens=5)) is None


def _reference_units(text: str) -> tuple[int, int, int]:
    """The definition, character by character: what the fast counting must equal."""
    punct = sum(1 for c in text if c in string.punctuation)
    non_ascii = sum(1 for c in text if ord(c) > 127)
    runs = re.findall(r"\s{2,}", text)
    ws_extra = sum(len(r) - 1 for r in runs)
    return max(0, len(text) - non_ascii - punct - ws_extra), punct, non_ascii


BLANKS_AND_MARKS = list("ab c\n\t  \r\x0b\u00a0\u2003é漢" + string.punctuation)


@given(st.text(alphabet=st.sampled_from(BLANKS_AND_MARKS)))
def test_text_units_counts_as_defined(text: str) -> None:
    assert text_units(text) == _reference_units(text)
