"""Request limits: a plan never carries more images than its provider takes in one request,
so the encoder never has to cut what the preview showed (SPEC X1, L3)."""

from __future__ import annotations

import json

import pytest

from explorer.compaction import planner
from explorer.compaction import target as target_module
from explorer.compaction.summary import SummaryRequest
from explorer.compaction.target import Target
from explorer.providers.encoding import encode_request
from explorer.tree.model import Message, Part

LIMIT = 4


def long_path(turns: int = 30, chars: int = 6000) -> list[Message]:
    path: list[Message] = []
    for t in range(turns):
        for role, word in (("user", "question"), ("assistant", "answer")):
            text = f"{word} {t}: " + " ".join(f"w{t}x{i}" for i in range(chars // 7))
            path.append(Message(id=len(path) + 1, parent_id=len(path) or None, role=role,  # type: ignore[arg-type]
                                parts=[Part("text", text)]))
    return path


class Summary:
    def summarize(self, request: SummaryRequest) -> str:
        return "the middle, summarized"


def limited(monkeypatch: pytest.MonkeyPatch) -> Target:
    """A target whose provider takes only ``LIMIT`` images a request."""
    monkeypatch.setitem(target_module.MAX_IMAGES, "anthropic", LIMIT)
    t = Target.default("anthropic", window=60_000, output_reserve=1000)
    assert t.images.max_images == LIMIT
    return t


def test_X1_pages_over_the_image_limit_are_left_out_oldest_first_and_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unlimited = planner.build_plan(long_path(), Target.default("anthropic", window=60_000,
                                                                output_reserve=1000),
                                   rung="snapshot")
    assert len(unlimited.pages) > LIMIT
    target = limited(monkeypatch)
    plan = planner.build_plan(long_path(), target, rung="snapshot")
    assert [p.png for p in plan.pages] == [p.png for p in unlimited.pages[-LIMIT:]]
    assert any(f"limit of {LIMIT} images" in n and "oldest page(s) are left out" in n
               for n in plan.notes)
    notes: list[str] = []
    body = encode_request(plan.messages(), target, notes=notes)
    assert json.dumps(body).count('"type": "image"') == LIMIT
    assert not any("left out" in n for n in notes)  # the encoder had nothing left to cut


def test_pages_over_the_image_limit_go_to_the_summary_rung_when_there_is_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = limited(monkeypatch)
    plan = planner.build_plan(long_path(), target, summarizer=Summary())
    assert "snapshot" not in plan.rungs and "summary" in plan.rungs
    assert any("the summary rung carries the middle" in n for n in plan.notes)
    assert plan.summary == "the middle, summarized" and not plan.pages
