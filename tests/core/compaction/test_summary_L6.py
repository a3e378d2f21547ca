"""L6/L7: the summarizing request keeps the task and always fits its budget."""

from __future__ import annotations

import copy

import pytest
from coding_session import Builder, FakeSummarizer, args, coding_session, listing
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.compaction.estimate import Estimator
from explorer.compaction.summary import (
    SummaryTooLarge,
    build_summary_request,
    render_message,
    summary_message,
)
from explorer.tree.model import Message, Part


def _huge_middle(turns: int, chars: int) -> list[Message]:
    b = Builder()
    for n in range(turns):
        b.add("user", Part("text", f"Request {n}: keep going."))
        b.call("Bash", args(command=f"cat big{n}.log"), listing(chars // 60))
        b.add("assistant", Part("text", f"Answer {n}."))
    return b.path


def test_L6_prompt_asks_for_task_decisions_open_threads_and_files() -> None:
    path = coding_session()
    req = build_summary_request(path, Estimator(), 100_000)
    prompt = req.prompt.lower()
    for word in ("task", "decisions", "open threads", "files", "constraint"):
        assert word in prompt
    assert req.omitted_messages == 0 and req.included_messages == len(path)
    assert all(render_message(m) in req.prompt for m in path)
    assert req.messages[0].role == "system" and req.system in req.messages[0].text


def test_L7_summary_request_fits_even_when_the_middle_is_huge() -> None:
    middle = _huge_middle(40, 20_000)
    est = Estimator()
    budget = 8000
    assert est.estimate(middle) > 10 * budget
    req = build_summary_request(middle, est, budget)
    assert req.estimated_tokens == est.estimate(req.messages, with_overhead=False)
    assert req.estimated_tokens <= budget
    assert req.omitted_messages > 0 and req.omitted_chars > 0
    assert "earlier messages" in req.prompt and "left out" in req.prompt
    assert render_message(middle[-1]) in req.prompt  # newest kept, oldest dropped
    assert render_message(middle[0]) not in req.prompt


def test_L7_a_single_message_larger_than_the_budget_is_cut() -> None:
    b = Builder()
    b.add("user", Part("text", "x " * 50_000))
    est = Estimator()
    req = build_summary_request(b.path, est, 3000)
    assert req.estimated_tokens <= 3000
    assert "chars cut from this message to fit" in req.prompt
    assert req.included_messages == 1


def test_L7_budget_below_the_instructions_is_a_clear_error() -> None:
    with pytest.raises(SummaryTooLarge, match="instructions alone"):
        build_summary_request(coding_session(), Estimator(), 50)


@settings(max_examples=40, deadline=None)
@given(
    turns=st.integers(1, 12),
    chars=st.integers(0, 30_000),
    budget=st.integers(600, 20_000),
    factor=st.floats(0.6, 2.5),
)
def test_L7_summary_request_estimate_never_exceeds_budget(
    turns: int, chars: int, budget: int, factor: float
) -> None:
    est = Estimator(factor=factor)
    middle = _huge_middle(turns, chars)
    before = copy.deepcopy(middle)
    req = build_summary_request(middle, est, budget)
    assert est.estimate(req.messages, with_overhead=False) <= budget
    assert middle == before


def test_L6_fake_summarizer_gets_the_request_and_result_becomes_a_message() -> None:
    fake = FakeSummarizer()
    req = build_summary_request(coding_session(), Estimator(), 50_000)
    text = fake.summarize(req)
    assert fake.requests == [req]
    assert text == f"Summary of {len(coding_session())} messages; the task was a schema migration."
    msg = summary_message(text, parent_id=7)
    assert msg.role == "user" and text in msg.text and msg.parent_id == 7
    assert msg.parts[0].meta == {"compaction": "summary"}
