"""/context: what fills the window, by part, estimated and measured."""

from __future__ import annotations

import json

from coding_session import coding_session, text_renderer

from explorer.compaction.context import context_usage, part_bucket
from explorer.compaction.estimate import Estimator
from explorer.compaction.ladder import run_ladder, shake
from explorer.tree.model import Message, Part, Usage, text_message


def test_context_accounts_every_part_and_sums_to_the_estimate() -> None:
    path = coding_session()
    est = Estimator()
    usage = context_usage(path, est, window=200_000, output_reserve=8000)
    for name in ("system", "tools", "user", "assistant", "tool_results", "images"):
        assert usage.parts[name] > 0, name
    assert usage.parts["snapshots"] == 0
    assert usage.estimated_total == sum(usage.parts.values())
    assert abs(usage.estimated_total - est.estimate(path)) <= len(path) * 4
    assert usage.parts["tool_results"] > usage.parts["assistant"]


def test_context_measured_is_latest_usage_plus_what_follows() -> None:
    path = coding_session()
    est = Estimator()
    usage = context_usage(path, est, window=100_000)
    last = max(i for i, m in enumerate(path) if m.usage)
    assert usage.measured_at == path[last].id
    stored = path[last].usage
    assert stored is not None and stored.input_tokens is not None
    expected = stored.input_tokens + est.estimate(path[last:], with_overhead=False)
    assert usage.measured_total == expected
    assert usage.free == 100_000 - expected


def test_context_without_usage_has_no_measured_total() -> None:
    path = [text_message(1, None, "user", "hello"), text_message(2, 1, "assistant", "hi")]
    usage = context_usage(path, Estimator(), window=1000, output_reserve=100)
    assert usage.measured_total is None and usage.measured_at is None
    assert usage.free == 1000 - 100 - usage.estimated_total
    assert context_usage(path, Estimator()).free is None


def test_context_of_a_built_plan_counts_snapshot_pages_apart() -> None:
    path = coding_session()
    est = Estimator()
    window = int((shake(path, est).tokens - 1500) / 0.8) + 2
    plan = run_ladder(path, window, est, text_renderer, output_reserve=0)
    usage = context_usage(plan.messages(), est, window=window)
    assert usage.parts["snapshots"] > 0 and usage.parts["images"] == 0
    assert usage.to_dict()["parts"]["snapshots"] == usage.parts["snapshots"]


def test_context_shows_learned_overhead_and_is_json() -> None:
    est = Estimator(overhead=5000)
    path = [
        Message(id=1, parent_id=None, role="user", parts=[Part("text", "hi")]),
        Message(
            id=2,
            parent_id=1,
            role="assistant",
            parts=[Part("text", "yo")],
            usage=Usage(input_tokens=5010),
        ),
    ]
    usage = context_usage(path, est, window=10_000)
    assert usage.parts["overhead"] == 5000
    d = json.loads(json.dumps(usage.to_dict()))
    assert d["measured_total"] == 5010 + est.estimate(path[1:], with_overhead=False)
    assert d["family"] == "anthropic"


def test_part_buckets() -> None:
    sysmsg = text_message(1, None, "system", "rules")
    user = text_message(2, 1, "user", "hi")
    assert part_bucket(sysmsg, sysmsg.parts[0]) == "system"
    assert part_bucket(user, Part("tool_use", "{}", tool_name="Bash")) == "tools"
    assert part_bucket(user, Part("tool_result", "ok")) == "tool_results"
    assert part_bucket(user, Part("image", data=b"x", meta={"compaction": "snapshot"})) == (
        "snapshots"
    )
    assert part_bucket(user, Part("thinking", "hmm")) == "user"
