"""Properties of every rung over random valid paths (hypothesis).

Every rung keeps each tool call paired with its result, never starts the tail
with an orphan result, is idempotent, and leaves user and assistant text alone.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from coding_session import Builder, png_bytes, text_renderer
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.compaction.elision import elide
from explorer.compaction.estimate import Estimator
from explorer.compaction.image_drop import drop_images
from explorer.compaction.ladder import run_ladder
from explorer.compaction.split import best_split
from explorer.tree.model import Message, Part

SMALL_PNG = png_bytes(40, 30)

step = st.tuples(
    st.integers(0, 2),  # tool calls in this step
    st.integers(0, 3000),  # result size
    st.booleans(),  # error
    st.booleans(),  # image in the result message
)
turn = st.tuples(st.integers(0, 400), st.booleans(), st.lists(step, max_size=3))


@st.composite
def paths(draw: st.DrawFn) -> list[Message]:
    b = Builder()
    if draw(st.booleans()):
        b.add("system", Part("text", "rules"))
    turns = draw(st.lists(turn, min_size=1, max_size=7))
    for n, (prompt_len, with_image, steps) in enumerate(turns):
        parts = [Part("text", f"prompt {n} " + "p" * prompt_len)]
        if with_image:
            parts.append(Part("image", data=SMALL_PNG, media_type="image/png"))
        b.add("user", *parts)
        for k, (calls, size, error, image) in enumerate(steps):
            ids = [f"t{n}_{k}_{c}" for c in range(calls)]
            b.add(
                "assistant",
                Part("text", f"step {n}.{k}"),
                *[Part("tool_use", "{}", tool_name="Bash", tool_use_id=i) for i in ids],
            )
            if ids:
                results = [
                    Part("tool_result", "r" * size, tool_use_id=i, is_error=error) for i in ids
                ]
                extra = [Part("image", data=SMALL_PNG, media_type="image/png")] if image else []
                b.add("user", *results, *extra)
        b.add("assistant", Part("text", f"answer {n}"))
    return b.path


def assert_paired(messages: Sequence[Message]) -> None:
    calls = [p.tool_use_id or "" for m in messages for p in m.tool_uses()]
    results = [p.tool_use_id or "" for m in messages for p in m.tool_results()]
    assert sorted(calls) == sorted(results)


def narrative(messages: Sequence[Message]) -> list[list[str]]:
    """User and assistant text, skipping the markers the rungs add."""
    return [
        [p.text for p in m.parts if p.kind == "text" and "dropped_image" not in p.meta]
        for m in messages
    ]


@settings(max_examples=60, deadline=None)
@given(path=paths(), keep=st.integers(0, 4))
def test_L1_L2_free_rungs_pair_idempotent_text_untouched(path: list[Message], keep: int) -> None:
    before = copy.deepcopy(path)
    for rung in (elide, drop_images):
        out, _ = rung(path, keep_turns=keep)
        assert path == before
        assert_paired(out)
        assert narrative(out) == narrative(path)
        again, report = rung(out, keep_turns=keep)
        assert again == out and report.count == 0


@settings(max_examples=60, deadline=None)
@given(path=paths(), head=st.integers(0, 3000), tail=st.integers(0, 5000))
def test_L3_split_never_starts_the_tail_with_an_orphan_result(
    path: list[Message], head: int, tail: int
) -> None:
    split = best_split(path, Estimator(), head_budget=head, tail_budget=tail)
    assert split.head + split.middle + split.tail == tuple(path)
    for part in (split.head, split.middle, split.tail):
        assert_paired(part)
    if split.tail:
        assert not split.tail[0].tool_results()


@settings(max_examples=30, deadline=None)
@given(path=paths(), window=st.integers(400, 20_000))
def test_L7_built_context_is_paired_and_a_second_pass_changes_nothing(
    path: list[Message], window: int
) -> None:
    before = copy.deepcopy(path)
    plan = run_ladder(path, window, Estimator(), text_renderer, output_reserve=0)
    assert path == before
    sent = plan.messages()
    assert_paired(sent)
    if plan.split is not None:
        assert plan.split.tail and not plan.split.tail[0].tool_results()
        kept = [*plan.split.head, *plan.split.tail]
        originals = {m.id: m for m in path}
        assert all(narrative([m]) == narrative([originals[m.id]]) for m in kept)
    if plan.fits:
        again = run_ladder(sent, window, Estimator(), text_renderer, output_reserve=0)
        assert again.messages() == sent  # a snapshot is rebuilt from its source, identically
