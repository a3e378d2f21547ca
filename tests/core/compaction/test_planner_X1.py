"""The one plan builder and the one target (X1), and the redaction hook it offers (R1)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

import pytest

from explorer.compaction import image_cost, planner
from explorer.compaction.target import ProviderKind, Target
from explorer.providers.encoding import encode_request
from explorer.tree.model import Message, Part, text_message

SECRET = "sk-ant-api03-THISISNOTAREALKEY"


def chat(turns: int, secret_at: int = -1) -> list[Message]:
    out: list[Message] = []
    for t in range(turns):
        words = " ".join(f"word{t}-{i}" for i in range(120))
        extra = f" my key is {SECRET}" if t == secret_at else ""
        out.append(text_message(2 * t, 2 * t - 1 if t else None, "user", words + extra))
        out.append(text_message(2 * t + 1, 2 * t, "assistant", "ok " + words))
    return out


def scrub(messages: Sequence[Message], notes: list[str]) -> list[Message]:
    out = []
    for m in messages:
        parts = [replace(p, text=p.text.replace(SECRET, "[redacted: api key]")) for p in m.parts]
        if parts != m.parts:
            notes.append(f"redacted an api key in message {m.id}")
        out.append(replace(m, parts=parts))
    return out


def test_X1_one_target_prices_estimates_and_draws_by_one_rule_per_model() -> None:
    target = Target.default("anthropic", tier="legible")
    g = target.geometry
    assert target.estimator().image_tokens(g.page_width, g.page_height) == g.cost()
    assert target.images.tokens(1568, 784) == image_cost.anthropic_tokens(1568, 784)
    assert target.images.source == image_cost.ANTHROPIC_MEASURED
    assert target.images.pricing.basis == "measured"  # the rule says where it comes from
    openai = Target.default("openai-compatible")
    assert (openai.family, openai.kind.pricing, openai.images.detail) == (
        "generic", "openai", "high")
    with pytest.raises(ValueError, match="unknown provider 'mistral'"):
        Target.default("mistral")
    with pytest.raises(ValueError, match="unknown tier"):
        Target.default(ProviderKind.GEMINI, tier="tiny")


def test_R1_the_redactor_runs_before_pages_and_bodies_are_made() -> None:
    context = chat(30, secret_at=10)
    target = Target.default("anthropic", window=12_000, output_reserve=1000)
    plan = planner.build_plan(context, replace(target, redactor=scrub), rung="snapshot")
    clean = planner.build_plan(scrub(context, []), target, rung="snapshot")
    assert plan.pages and [p.png for p in plan.pages] == [p.png for p in clean.pages]
    body = json.dumps(encode_request(plan.messages(), target))
    assert SECRET not in body and "[redacted: api key]" in json.dumps(
        [p.text for m in plan.path for p in m.parts])
    assert "redacted an api key in message 20" in plan.notes
    assert SECRET in context[20].text  # the stored conversation is untouched


def test_X1_a_prompt_that_fits_leaves_the_planned_context_as_previewed() -> None:
    target = Target.default("anthropic", window=12_000, output_reserve=1000)
    plan = planner.build_plan(chat(30), target)
    prompt = [Message(id="new", parent_id=None, role="user", parts=[Part("text", "next?")])]
    assert plan.pages and planner.prompt_fits(plan, prompt, target)
    assert planner.request_messages(plan, prompt)[:-1] == plan.messages()
