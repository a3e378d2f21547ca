"""The snapshot's density is reported alone and with the fact sheet; the sheet skips verbatim."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from coding_session import coding_session

from explorer.app.context import compacting
from explorer.compaction import planner
from explorer.compaction.facts import message_texts
from explorer.compaction.target import Target
from explorer.tree.model import Part, text_message


def _plan(rung: str = "snapshot") -> planner.CompactionPlan:
    return planner.build_plan(coding_session(), Target.default("anthropic"), rung=rung)


def test_L3_the_sheet_beside_the_pages_leaves_out_what_the_start_and_end_carry() -> None:
    path = coding_session()
    alone = planner.build_plan(path, Target.default("anthropic"), rung="snapshot")
    assert alone.facts is not None and alone.facts.values
    repeated = alone.facts.values[0]
    last = path[-1]
    path[-1] = replace(last, parts=[*last.parts, Part("text", f"(still {repeated})")])
    plan = planner.build_plan(path, Target.default("anthropic"), rung="snapshot")
    assert plan.split is not None and plan.facts is not None and plan.pages
    assert plan.split.tail[-1].id == last.id
    assert repeated not in plan.facts.values and plan.facts.in_verbatim >= 1
    verbatim = "\n".join(t for _, t in message_texts([*plan.split.head, *plan.split.tail]))
    assert all(v not in verbatim for v in plan.facts.values)
    middle = "\n".join(t for _, t in message_texts(plan.split.middle))
    assert plan.facts.in_verbatim == len(
        {f for f in _facts(middle) if f in verbatim}
    )


def _facts(text: str) -> list[str]:
    from explorer.compaction.facts import find_facts

    return [f.value for f in find_facts(text)]


def test_density_is_reported_with_and_without_the_fact_sheet(tmp_path: Path) -> None:
    plan = _plan()
    d = plan.density()
    assert d is not None
    assert d["chars"] == sum(p.chars for p in plan.pages)  # type: ignore[attr-defined]
    parts = plan.part_tokens()
    assert d["page_tokens"] == parts["pages"] and d["fact_tokens"] == parts["facts"] > 0
    assert d["chars_per_token"] == round(d["chars"] / parts["pages"], 2)
    assert d["chars_per_token_with_facts"] < d["chars_per_token"]
    assert plan.to_record()["density"] == d
    (line,) = [ln for ln in compacting.plan_lines(plan) if "density:" in ln]
    assert f"{d['chars_per_token']:.1f} chars/token" in line
    assert f"{d['chars_per_token_with_facts']:.1f} with the" in line
    compacting.write_preview(plan, Target.default("anthropic"), tmp_path)
    assert json.loads((tmp_path / "plan.json").read_text())["density"] == d


def test_no_density_without_pages() -> None:
    plan = planner.build_plan([text_message(1, None, "user", "hi")], Target.default("anthropic"))
    assert plan.density() is None
    assert "density" not in plan.to_record()
    assert compacting.density_lines(plan) == []
