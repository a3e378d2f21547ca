"""A tool result's metadata is shortened exactly when its JSON text is over the limit.

Most results are small, and a compact encoding decides that without writing the text out
(``blocks.tool_use_result_meta``); whatever the value, the answer must be the one the text
gives."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.formats.claude_code import blocks
from explorer.formats.claude_code.blocks import TOOL_RESULT_META_LIMIT, tool_use_result_meta


def _by_the_text(value: Any) -> Any:
    text = blocks._json_text(value)
    if len(text) <= TOOL_RESULT_META_LIMIT:
        return value
    return {"truncated": True, "chars": len(text), "head": text[:TOOL_RESULT_META_LIMIT]}


_TEXT = st.text(st.characters(codec="utf-8"), max_size=400) | st.sampled_from(
    [",", ":", ", : ", "\n\t\x00\x1f", "\u2028", "é" * 300, "x" * 1300])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=30) | st.dictionaries(_TEXT, inner, max_size=30),
    max_leaves=200)


@settings(max_examples=120, deadline=None)
@given(_JSON)
def test_the_shortening_is_the_texts_whatever_the_value(value: Any) -> None:
    assert tool_use_result_meta(value) == _by_the_text(value)


def test_a_value_near_the_limit_is_measured_by_its_text() -> None:
    for n in range(300, 1400, 13):  # the compact bytes say "small" only below a third
        for value in ({"stdout": "a" * n, "stderr": ""}, ["b" * (3 * n)], {"k": [1.5e16] * n}):
            assert tool_use_result_meta(value) == _by_the_text(value), (n, type(value))
