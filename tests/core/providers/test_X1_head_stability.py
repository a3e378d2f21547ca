"""The head of a compacted request stays byte-stable across compaction rounds (hypothesis).

A conversation compacted once moves on and is compacted again, further: the request's head
(the system text and the verbatim start before the pages) must be the same bytes in both
rounds, or the provider's prompt cache throws away the prefix it just wrote. Checked over
random conversations, growths, windows, tiers, learned corrections, reactive rounds and every
provider's encoder (SPEC X1, L3, L7).
"""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import pairwise
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from explorer.compaction import planner
from explorer.compaction.context import SNAPSHOT_INTRO, CompactionPlan
from explorer.compaction.target import ProviderKind, Target
from explorer.providers.encoding import encode_request
from explorer.tree.model import Message, Part, Usage

INTRO = SNAPSHOT_INTRO.split("{n}")[0]
WORDS = ("alpha", "parser", "fix", "0x3f2b", "import", "test", "résumé", "{json: 1}", "path/to")

turn = st.tuples(
    st.integers(5, 400),  # prompt words
    st.integers(5, 600),  # answer words
    st.integers(0, 2),  # tool calls in the turn
    st.integers(0, 4000),  # size of each tool result
    st.booleans(),  # a failing tool result
)


def words(n: int, seed: int) -> str:
    return " ".join(WORDS[(seed + i * 7) % len(WORDS)] for i in range(n))


def conversation(turns: list[tuple[int, int, int, int, bool]], system: bool) -> list[Message]:
    path: list[Message] = []

    def add(role: str, *parts: Part) -> None:
        path.append(Message(id=len(path) + 1, parent_id=len(path) or None, role=role,  # type: ignore[arg-type]
                            parts=list(parts)))

    if system:
        add("system", Part("text", "You are a careful engineer. " + words(60, 1)))
    for n, (prompt, answer, calls, size, failing) in enumerate(turns):
        add("user", Part("text", f"question {n}: " + words(prompt, n)))
        ids = [f"call_{n}_{c}" for c in range(calls)]
        if ids:
            add("assistant", Part("text", f"looking {n}"),
                *[Part("tool_use", json.dumps({"cmd": f"run {i}"}), tool_name="Bash",
                       tool_use_id=i) for i in ids])
            add("tool", *[Part("tool_result", words(size // 6, n + 3), tool_use_id=i,
                               is_error=failing) for i in ids])
        add("assistant", Part("text", f"answer {n}: " + words(answer, n + 5)))
    return path


def with_usage(path: list[Message], ratio: float | None, noise: list[float]) -> list[Message]:
    """The answers carry the prompt count a provider measured: the heuristic times ``ratio``,
    jittered, so the estimator learns another factor every round (L7)."""
    if ratio is None:
        return path
    est = Target.default().estimator()
    out: list[Message] = []
    for i, m in enumerate(path):
        if m.role == "assistant" and not m.tool_uses():
            jitter = 1 + noise[i % len(noise)]
            measured = int(est.estimate(path[:i]) * ratio * jitter) + 1
            m = replace(m, usage=Usage(input_tokens=measured, output_tokens=50))
        out.append(m)
    return out


def compact(path: list[Message], target: Target, reactive: bool) -> CompactionPlan:
    """A proactive round, or a reactive one after the provider measured 30 % more (L7)."""
    if not reactive:
        return planner.build_plan(path, target)
    est = target.estimator(path)
    est.learn_from_rejection(path, int(est.estimate(path) * 1.3))
    return planner.build_plan(path, target, mode="reactive", estimator=est)


def head_bytes(body: dict[str, Any], kind: ProviderKind) -> str:
    """The serialized request up to the snapshot intro, with the system text in front."""
    system = body.get("system") or body.get("systemInstruction") or ""
    turns = {k: v for k, v in body.items() if k in ("model", "messages", "contents")}
    if kind in (ProviderKind.OPENAI, ProviderKind.OPENAI_COMPATIBLE):
        system = ""  # a leading system message is part of ``messages``
    text = json.dumps({"system": system, **turns}, ensure_ascii=False)
    cut = text.find(INTRO)
    assert cut > 0, "the request carries the pages"
    return text[:cut]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=st.lists(turn, min_size=14, max_size=22),
    growth=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    system=st.booleans(),
    kind=st.sampled_from([ProviderKind.ANTHROPIC, ProviderKind.OPENAI, ProviderKind.GEMINI,
                          ProviderKind.OPENAI_COMPATIBLE]),
    tier=st.sampled_from(["dense", "legible"]),
    fill=st.floats(0.3, 0.8),
    ratio=st.none() | st.floats(0.7, 1.6),
    noise=st.lists(st.floats(-0.1, 0.1), min_size=1, max_size=5),
    rejected=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_X1_the_head_is_byte_stable_across_compaction_rounds(
    turns: list[tuple[int, int, int, int, bool]], growth: list[int], system: bool,
    kind: ProviderKind, tier: str, fill: float, ratio: float | None, noise: list[float],
    rejected: list[bool],
) -> None:
    full = with_usage(conversation(turns, system), ratio, noise)
    ends = [i for i, m in enumerate(full, start=1) if m.role == "assistant"
            and not m.tool_uses()]  # turn boundaries
    first = ends[len(ends) // 2]
    probe = Target.default(kind, window=10**7, output_reserve=1000, tier=tier)
    tokens = probe.estimator().estimate(full[:first])
    window = 1000 + int(tokens * fill / probe.threshold)  # the first round is over the threshold
    target = Target.default(kind, window=max(window, 8000), output_reserve=1000, tier=tier)
    rounds = [first]
    for step in growth:
        later = [e for e in ends if e > rounds[-1]]
        rounds.append(later[min(step, len(later)) - 1] if later else rounds[-1])
    heads: list[str] = []
    for end, reactive in zip(rounds, rejected, strict=False):
        plan = compact(full[:end], target, reactive)
        if "snapshot" not in plan.rungs:
            continue  # the free rungs were enough this round: no head to keep stable
        assert plan.split is not None
        heads.append(head_bytes(encode_request(plan.messages(), target), kind))
    event(f"rounds compared: {max(0, len(heads) - 1)}")
    for before, after in pairwise(heads):
        assert after == before
