"""The fact sheet's cost: written compactly, carried whole, and cut (visibly) only where pages and
sheet would cost more than half of the middle sent as text."""

from __future__ import annotations

import random

from coding_session import COMMIT_SHA, FACT_STRINGS, Builder, coding_session, explanation
from coding_session import test_log as log_lines

from explorer.compaction import ladder, planner
from explorer.compaction.estimate import Estimator
from explorer.compaction.fact_layout import expand
from explorer.compaction.facts import fact_sheet
from explorer.compaction.target import Target
from explorer.tree.model import Part, text_message


def test_L3_a_files_line_numbers_follow_its_colon_once_as_runs() -> None:
    text = ("grep: src/app.py:12 src/app.py:40 docs/notes.md:7 src/app.py:97:3 src/app.py:41 "
            f"src/app.py:42 then commit {COMMIT_SHA}")
    sheet = fact_sheet([text_message(1, None, "assistant", text)])
    lines = sheet.text.splitlines()
    assert "src/app.py:12,40-42,97:3" in lines[1:] or "src/app.py:12,40-42,97:3" in sheet.text
    assert sheet.text.count("src/app.py") == 1
    assert set(sheet.values) <= set(expand(sheet.text))


def test_L3_a_directory_is_written_once_for_the_files_in_it() -> None:
    root = "/home/dev/projects/billing-service/src/exports/"
    names = [f"{root}part_{k}.py" for k in range(6)]
    sheet = fact_sheet([text_message(1, None, "assistant", "edited " + ", ".join(names))])
    assert sheet.text.count(root) == 1
    assert f"{root} part_0.py part_1.py" in sheet.text
    assert set(names) <= set(expand(sheet.text))
    one_a_line = sum(len(n) + 1 for n in names)
    assert len(sheet.text) < one_a_line


def test_L3_a_bare_number_carries_the_word_beside_it() -> None:
    text = "The service listens on port 8080 and the export wrote len=20480, in 4711 rows."
    sheet = fact_sheet([text_message(1, None, "assistant", text)])
    items = expand(sheet.text)
    assert "port 8080" in items and "len=20480" in items
    assert "4711 rows" in items


def test_L3_a_string_inside_another_on_the_sheet_is_written_once() -> None:
    short = COMMIT_SHA[:8]
    text = f"Checked out {short}; the build is at /srv/builds/{COMMIT_SHA}/app.log"
    sheet = fact_sheet([text_message(1, None, "assistant", text)])
    assert short in sheet.values
    assert sheet.text.count(short) == 1
    assert any(short in item for item in expand(sheet.text))


def test_L3_closing_tags_and_base64_are_not_paths() -> None:
    blob = "/" + "QUJD" * 40 + "/x+y" + "Zm9v" * 30
    text = f"<system-reminder>keep going</system-reminder> and image {blob} then /etc/hosts"
    sheet = fact_sheet([text_message(1, None, "assistant", text)])
    assert sheet.values == ["/etc/hosts"]


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


def test_L3_a_coding_sessions_middle_is_carried_whole() -> None:
    path = coding_session()
    plan = planner.build_plan(path, Target.default("anthropic"), rung="snapshot")
    assert plan.pages and plan.facts is not None and plan.split is not None
    middle_text = "\n".join(p.text for m in plan.split.middle for p in m.parts)
    verbatim = "\n".join(p.text for m in [*plan.split.head, *plan.split.tail] for p in m.parts)
    planted = [s for s in FACT_STRINGS if s in middle_text and s not in verbatim]
    assert planted and plan.facts.omitted == 0
    carried = expand(plan.facts.text)
    assert all(any(s in item for item in carried) for s in planted)
    assert not any("leaves out" in n for n in plan.notes)


def test_L3_a_middle_of_random_ids_is_cut_to_half_its_text_cost_and_says_so() -> None:
    plan = planner.build_plan(_session_with_a_long_id_listing(400), Target.default("anthropic"),
                              rung="snapshot")
    assert plan.pages and plan.facts is not None and plan.split is not None
    sheet = plan.facts
    assert 0 < sheet.omitted < 400  # random ids cost as much on the sheet as in the text
    assert sheet.values[0] == COMMIT_SHA  # the one the narrative names is kept first
    assert dict(sheet.left_out) == {"hash": sheet.omitted}
    parts = plan.part_tokens()
    as_text = plan.estimator.estimate(plan.split.middle, with_overhead=False)
    assert parts["pages"] + parts["facts"] <= ladder.FACT_TEXT_SHARE * as_text + 1
    # the request's sheet and the preview's notes both say how many of which kinds
    assert sheet.text.splitlines()[-1].startswith(f"({sheet.omitted} more left out")
    assert f"{sheet.omitted} hashes" in sheet.text
    note = next(n for n in plan.notes if "leaves out" in n)
    assert f"{sheet.omitted} exact string(s) ({sheet.omitted} hash)" in note
    assert sheet.to_dict()["left_out"] == {"hash": sheet.omitted}


def test_the_token_cap_holds_and_counts_what_it_left_out() -> None:
    est = Estimator(family="anthropic")
    msgs = [text_message(i, None, "user", f"file /data/run_{i:05}/out_{i}.json")
            for i in range(300)]
    sheet = fact_sheet(msgs, max_tokens=200, tokens=est.text_tokens)
    assert 0 < len(sheet.facts) < 300 and sheet.omitted == 300 - len(sheet.facts)
    assert est.text_tokens(sheet.text) <= 200
    assert set(sheet.values) <= set(expand(sheet.text))


def test_a_small_sheet_is_not_cut() -> None:
    plan = planner.build_plan(_session_with_a_long_id_listing(3), Target.default("anthropic"),
                              rung="snapshot")
    assert plan.facts is not None and plan.facts.omitted == 0
    assert COMMIT_SHA in plan.facts.values and len(plan.facts.values) == 4


def test_a_short_middle_keeps_its_few_strings_whatever_the_pages_cost() -> None:
    files = ", ".join(f"src/export/part_{k}.py" for k in range(6))
    middle = [text_message(1, None, "assistant", f"Done: {files} at {COMMIT_SHA}.")]
    est = Estimator(family="anthropic")
    sheet = ladder.sheet_beside_pages(middle, [], page_tokens=10**6, estimator=est)
    assert sheet.omitted == 0 and len(sheet.values) == 7  # the floor lets them through
    assert est.correct(est.text_tokens(sheet.text)) <= ladder.FACT_FLOOR_TOKENS


def test_L3_a_cut_sheet_is_named_in_the_preview_lines() -> None:
    from explorer.app.context.compacting import plan_lines

    plan = planner.build_plan(_session_with_a_long_id_listing(400), Target.default("anthropic"),
                              rung="snapshot")
    assert plan.facts is not None and plan.facts.omitted
    lines = plan_lines(plan)
    assert any(line.startswith(f"note: the fact sheet leaves out {plan.facts.omitted} ")
               and "hash" in line for line in lines)
