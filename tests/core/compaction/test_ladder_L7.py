"""The ladder (SPEC §5 table, L6, L7): cheapest rung first, stop at the first that fits."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from coding_session import FakeSummarizer, coding_session, text_renderer

from explorer.compaction.elision import elide
from explorer.compaction.estimate import Estimator
from explorer.compaction.ladder import LadderError, run_ladder, shake
from explorer.tree.turns import turn_starts


def _window_for(tokens: int, ratio: float = 0.8, reserve: int = 0) -> int:
    """The smallest window whose target admits ``tokens``."""
    return int(tokens / ratio) + reserve + 2


def test_L7_proactive_below_threshold_changes_nothing() -> None:
    path = coding_session()
    est = Estimator()
    plan = run_ladder(path, _window_for(est.estimate(path)), est, text_renderer, output_reserve=0)
    assert plan.rungs == () and plan.trigger == "none"
    assert plan.messages() == path and plan.fits


def test_L1_ladder_stops_at_elision_when_that_fits() -> None:
    path = coding_session()
    est = Estimator()
    after_elide = est.estimate(elide(path)[0])
    plan = run_ladder(path, _window_for(after_elide), est, text_renderer, output_reserve=0)
    assert plan.rungs == ("elide",) and plan.fits and plan.trigger == "threshold"
    assert plan.savings["elide"] == est.estimate(path) - after_elide > 0


def test_L2_ladder_climbs_to_images_when_elision_is_not_enough() -> None:
    path = coding_session()
    est = Estimator()
    shaken = shake(path, est).tokens
    plan = run_ladder(path, _window_for(shaken), est, text_renderer, output_reserve=0)
    assert plan.rungs == ("elide", "images") and plan.fits
    assert plan.savings["images"] > 0 and plan.reports["images"].count == 2


def test_L3_ladder_climbs_to_snapshots_head_pages_tail() -> None:
    path = coding_session()
    est = Estimator()
    window = _window_for(shake(path, est).tokens - 1500)
    plan = run_ladder(path, window, est, text_renderer, output_reserve=0)
    assert plan.rungs == ("elide", "images", "snapshot") and plan.fits
    assert plan.split is not None and plan.split.middle and plan.pages
    sent = plan.messages()
    head, tail = plan.split.head, plan.split.tail
    assert sent[: len(head)] == list(head) and sent[-len(tail) :] == list(tail)
    snap = sent[len(head)]
    images = [p for p in snap.parts if p.kind == "image"]
    assert [p.data for p in images] == [pg.png for pg in plan.pages]
    assert all(p.data and p.data.startswith(b"\x89PNG") for p in images)
    assert plan.facts is not None and snap.parts[-1].text == plan.facts.text
    assert tail[0].is_prompt and plan.split.tail_start in turn_starts(plan.path)
    assert sent[1].text.startswith("Task:")  # the task stays verbatim


def test_L3_record_is_json_with_page_hashes_and_token_counts() -> None:
    path = coding_session()
    est = Estimator()
    plan = run_ladder(
        path, _window_for(shake(path, est).tokens - 1500), est, text_renderer, output_reserve=0
    )
    record = json.loads(json.dumps(plan.to_record()))
    assert record["rungs"] == ["elide", "images", "snapshot"]
    assert [p["sha256"] for p in record["pages"]] == [
        hashlib.sha256(p.png).hexdigest() for p in plan.pages
    ]
    tokens = record["tokens"]
    assert plan.target is not None and plan.target == record["parameters"]["target"]
    assert tokens["after"] == plan.tokens <= plan.target
    assert tokens["before"] == est.estimate(path)
    assert tokens["pages"] == sum(p["tokens"] for p in record["pages"]) + 2 * len(plan.pages)
    assert record["split"]["tail_start_id"] == plan.split.tail[0].id  # type: ignore[union-attr]
    assert set(record["savings"]) == {"elide", "images", "snapshot"}
    assert record["reports"]["elide"]["count"] > 0


def test_L4_same_path_and_settings_give_identical_pages() -> None:
    path = coding_session()
    window = _window_for(shake(path, Estimator()).tokens - 1500)
    a = run_ladder(path, window, Estimator(), text_renderer, output_reserve=0)
    b = run_ladder(path, window, Estimator(), text_renderer, output_reserve=0)
    assert [p.png for p in a.pages] == [p.png for p in b.pages]
    assert a.to_record() == b.to_record()


def test_L6_summary_only_when_snapshots_do_not_fit_and_a_summarizer_is_given() -> None:
    path = coding_session()
    est = Estimator()
    window = 4000
    alone = run_ladder(path, window, Estimator(), text_renderer, output_reserve=0)
    assert "summary" not in alone.rungs and not alone.fits
    assert any("no summarizer" in n for n in alone.notes)
    fake = FakeSummarizer()
    plan = run_ladder(path, window, est, text_renderer, fake, output_reserve=0)
    assert plan.rungs == ("elide", "images", "snapshot", "summary") and plan.fits
    assert len(fake.requests) == 1
    request = fake.requests[0]
    assert est.estimate(request.messages, with_overhead=False) <= plan.target  # type: ignore[operator]
    sent = plan.messages()
    assert any(m.parts[0].meta.get("compaction") == "summary" for m in sent)
    assert not plan.pages
    assert plan.to_record()["summary"]["request"]["budget"] == plan.target


def test_L6_summarizer_is_not_called_when_a_free_rung_fits() -> None:
    path = coding_session()
    est = Estimator()
    fake = FakeSummarizer()
    window = _window_for(shake(path, est).tokens - 1500)
    plan = run_ladder(path, window, est, text_renderer, fake, output_reserve=0)
    assert "summary" not in plan.rungs and fake.requests == []


def test_L7_reactive_overflow_recovers_with_snapshots_only() -> None:
    path = coding_session()
    est = Estimator()
    text, images = est.raw_split(path)
    measured = 3 * text + images  # the heuristic undercounted text threefold
    window, reserve = 24_000, 1000
    assert est.estimate(path) < window < measured
    plan = run_ladder(
        path,
        window,
        est,
        text_renderer,
        None,
        mode="reactive",
        measured=measured,
        output_reserve=reserve,
    )
    assert est.factor == pytest.approx(3.0, rel=0.01)
    assert plan.tokens_before == measured and plan.trigger == "rejection"
    assert plan.target == int(0.9 * (window - reserve))
    assert "snapshot" in plan.rungs and "summary" not in plan.rungs
    assert plan.fits and plan.tokens <= plan.target


def test_L7_reactive_accepts_the_providers_error_text() -> None:
    path = coding_session()
    est = Estimator()
    text, images = est.raw_split(path)
    error = f"prompt is too long: {2 * text + images} tokens > 16000 maximum"
    plan = run_ladder(
        path, 16_000, est, text_renderer, mode="reactive", measured=error, output_reserve=1000
    )
    assert plan.tokens_before == 2 * text + images and plan.fits


def test_L7_forced_rung_runs_up_to_exactly_that_rung() -> None:
    path = coding_session()
    huge = 10**7
    plan = run_ladder(path, huge, Estimator(), text_renderer, force="elide")
    assert plan.rungs == ("elide",) and plan.trigger == "forced"
    plan = run_ladder(path, huge, Estimator(), text_renderer, force="images")
    assert plan.rungs == ("elide", "images")
    plan = run_ladder(path, huge, Estimator(), text_renderer, force="snapshot")
    assert plan.rungs[-1] == "snapshot" and plan.pages
    fake = FakeSummarizer()
    plan = run_ladder(path, huge, Estimator(), text_renderer, fake, force="summary")
    assert plan.rungs[-1] == "summary" and len(fake.requests) == 1


def test_L6_forcing_summary_without_a_summarizer_is_refused() -> None:
    with pytest.raises(LadderError, match="summarizer"):
        run_ladder(coding_session(), 10**6, Estimator(), text_renderer, force="summary")


def test_output_reserve_larger_than_the_window_is_refused() -> None:
    with pytest.raises(LadderError, match="no room"):
        run_ladder(coding_session(), 1000, Estimator(), text_renderer, output_reserve=1000)


def test_shake_runs_the_free_rungs_only() -> None:
    path = coding_session()
    plan = shake(path)
    assert plan.rungs == ("elide", "images") and plan.split is None
    assert plan.tokens < plan.tokens_before
    assert plan.savings["elide"] > 0 and plan.savings["images"] > 0


def test_ladder_never_mutates_the_path_and_a_second_pass_is_a_no_op() -> None:
    path = coding_session()
    before = copy.deepcopy(path)
    window = _window_for(shake(path, Estimator()).tokens - 1500)
    plan = run_ladder(path, window, Estimator(), text_renderer, output_reserve=0)
    assert path == before
    again = run_ladder(plan.messages(), window, Estimator(), text_renderer, output_reserve=0)
    assert again.messages() == plan.messages()


def test_L3_nothing_to_image_is_reported_not_faked() -> None:
    path = coding_session()[:2]  # the system message and the task: no middle anywhere
    plan = run_ladder(path, 60, Estimator(), text_renderer, output_reserve=0)
    assert not plan.fits and not plan.pages and plan.split is None
    assert any("nothing" in n or "no turn boundary" in n for n in plan.notes)
    assert any("does not fit" in n for n in plan.notes)
