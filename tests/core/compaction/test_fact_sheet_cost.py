"""The fact sheet's cost: compact lines, and at most a share of the pages it stands beside."""

from __future__ import annotations

import random

from coding_session import COMMIT_SHA, Builder, explanation
from coding_session import test_log as log_lines

from explorer.compaction import ladder, planner
from explorer.compaction.facts import SHEET_HEADER, fact_sheet
from explorer.compaction.target import Target
from explorer.tree.model import Part, text_message


def test_one_string_a_line_and_a_files_line_numbers_on_one_line() -> None:
    text = ("grep: src/app.py:12 src/app.py:40 docs/notes.md:7 src/app.py:97:3 "
            f"then commit {COMMIT_SHA}")
    sheet = fact_sheet([text_message(1, None, "assistant", text)])
    assert sheet.values == ["src/app.py:12", "src/app.py:40", "docs/notes.md:7",
                            "src/app.py:97:3", COMMIT_SHA]
    assert sheet.text.splitlines() == [
        SHEET_HEADER, "src/app.py:12, 40, 97:3", "docs/notes.md:7", COMMIT_SHA]


def _session_with_a_long_id_listing(ids: int) -> list:  # type: ignore[type-arg]
    rng = random.Random(7)
    listing = "\n".join(f"dangling commit {rng.getrandbits(160):040x}" for _ in range(ids))
    b = Builder()
    b.add("system", Part("text", "You are a careful coding assistant."))
    b.add("user", Part("text", "The nightly export broke."))
    b.add("assistant", Part("text", "I will look at the builds."))
    b.add("user", Part("text", "Which of the nightly builds broke the export?"))
    # a failed command: the elision rung keeps errors whole, so the ids reach the pages
    b.call("Bash", '{"command": "git fsck --lost-found"}', f"error: broken links\n{listing}",
           error=True, text=f"The suspect is {COMMIT_SHA}; let me check the repository.")
    b.add("assistant", Part("text", explanation("the listing", 30)))
    for n in range(3):
        b.add("user", Part("text", f"Step {n}: run the tests again."))
        b.call("Bash", f'{{"command": "pytest -q -k step{n}"}}', log_lines(40))
        b.add("assistant", Part("text", f"Step {n} done."))
    return b.path


def test_L3_the_sheet_costs_at_most_its_share_of_the_pages_and_keeps_the_named_ids_first(
) -> None:
    plan = planner.build_plan(_session_with_a_long_id_listing(400), Target.default("anthropic"),
                              rung="snapshot")
    assert plan.pages and plan.facts is not None
    parts = plan.part_tokens()
    assert parts["pages"] * ladder.FACT_PAGE_SHARE > ladder.FACT_FLOOR_TOKENS
    assert parts["facts"] <= ladder.FACT_PAGE_SHARE * parts["pages"] + 1
    assert plan.facts.omitted > 0  # 400 ids of tool output do not all fit
    assert plan.facts.values[0] == COMMIT_SHA  # the one the narrative names comes first
    assert f"({plan.facts.omitted} more omitted" in plan.facts.text


def test_a_small_sheet_is_not_cut() -> None:
    plan = planner.build_plan(_session_with_a_long_id_listing(3), Target.default("anthropic"),
                              rung="snapshot")
    assert plan.facts is not None and plan.facts.omitted == 0
    assert COMMIT_SHA in plan.facts.values and len(plan.facts.values) == 4


def test_a_short_middle_keeps_its_few_strings_though_they_cost_more_than_the_share() -> None:
    b = Builder()
    b.add("system", Part("text", "You are a careful coding assistant."))
    b.add("user", Part("text", "The nightly export broke; fix it step by step."))
    for n in range(4):
        b.add("user", Part("text", f"Step {n}: run the tests again."))
        b.call("Bash", f'{{"command": "pytest -q -k step{n}"}}', log_lines(40))
        files = ", ".join(f"src/export/part_{n}_{k}.py" for k in range(6))
        b.add("assistant", Part("text", f"Step {n} done: {files} at {COMMIT_SHA[n:]}."))
    plan = planner.build_plan(b.path, Target.default("anthropic"), rung="snapshot")
    assert plan.facts is not None and plan.pages
    parts = plan.part_tokens()
    assert parts["facts"] > ladder.FACT_PAGE_SHARE * parts["pages"]  # the floor lets it through
    assert parts["facts"] <= ladder.FACT_FLOOR_TOKENS
    assert "src/export/part_1_0.py" in plan.facts.values and plan.facts.omitted == 0
