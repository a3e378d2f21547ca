"""P4 and C4 as properties over random paths (pure, no I/O)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.tree.model import Message, Part
from explorer.tree.trim import plan_trim
from explorer.tree.turns import split_turns


@st.composite
def paths(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    n_turns = draw(st.integers(1, 8))
    for t in range(n_turns):
        out.append(Message(len(out), None, "user", [Part("text", f"p{t}")]))
        for s in range(draw(st.integers(0, 3))):
            calls = [f"c{t}-{s}-{k}" for k in range(draw(st.integers(1, 3)))]
            out.append(Message(len(out), None, "assistant",
                               [Part("tool_use", tool_name="T", tool_use_id=c) for c in calls]))
            for c in calls:  # results may come one message each (parallel calls)
                out.append(Message(len(out), None, "user",
                                   [Part("tool_result", "r", tool_use_id=c)]))
        out.append(Message(len(out), None, "assistant", [Part("text", f"a{t}")]))
    for i, m in enumerate(out):
        m.parent_id = i - 1 if i else None
    return out


@settings(max_examples=200, deadline=None)
@given(path=paths(), data=st.data())
def test_P4_trim_never_keeps_an_orphan_tool_result(
    path: list[Message], data: st.DataObject
) -> None:
    keep = data.draw(st.integers(1, 10))
    plan = plan_trim(path, keep_turns=keep)
    kept = path[plan.start_index:]
    calls = {p.tool_use_id for m in kept for p in m.parts if p.kind == "tool_use"}
    results = {p.tool_use_id for m in kept for p in m.parts if p.kind == "tool_result"}
    assert results <= calls
    assert kept[0].is_prompt
    assert plan.kept_turns == min(keep, len(split_turns(path)))


@settings(max_examples=200, deadline=None)
@given(path=paths(), data=st.data())
def test_C4_labels_before_the_cut_are_dropped_and_none_clamped(
    path: list[Message], data: st.DataObject
) -> None:
    n = len(path)
    count = data.draw(st.integers(0, 5))
    labels = {f"l{i}": data.draw(st.integers(0, n - 1)) for i in range(count)}
    plan = plan_trim(path, keep_turns=data.draw(st.integers(1, 5)), checkpoints=labels)
    assert set(plan.dropped_checkpoints) == {k for k, v in labels.items() if v < plan.start_index}


@settings(max_examples=100, deadline=None)
@given(path=paths(), budget=st.integers(1, 400))
def test_P4_token_trim_keeps_at_least_the_last_turn_and_fits_when_it_can(
    path: list[Message], budget: int
) -> None:
    plan = plan_trim(path, keep_tokens=budget, estimate=lambda m: 10)
    turns = split_turns(path)
    assert plan.start_index >= turns[0].start and plan.kept_turns >= 1
    if plan.kept_turns > 1:
        assert (len(path) - plan.start_index) * 10 <= budget
