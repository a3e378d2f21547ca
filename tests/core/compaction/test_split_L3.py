"""L3 shape: verbatim head (the task), middle to image, verbatim tail, cut at turn starts."""

from __future__ import annotations

import copy

from coding_session import coding_session, single_turn_session

from explorer.compaction.estimate import Estimator
from explorer.compaction.split import best_split, cut_points, split_path
from explorer.tree.turns import turn_starts


def test_L3_head_holds_system_and_task_tail_holds_recent_turns() -> None:
    path = coding_session()
    est = Estimator()
    split = split_path(path, est, head_budget=1000, tail_budget=3000)
    starts = turn_starts(path)
    assert split.head[0].role == "system"
    assert split.head[1].text.startswith("Task:")
    assert split.head_end == starts[1]
    assert split.tail_start in starts and split.tail[-1] is path[-1]
    assert split.middle and split.head + split.middle + split.tail == tuple(path)


def test_L3_cuts_only_at_turn_starts_so_tail_has_no_orphan_result() -> None:
    path = coding_session()
    est = Estimator()
    for tail_budget in (0, 500, 2000, 5000, 10**6):
        split = split_path(path, est, head_budget=0, tail_budget=tail_budget)
        assert split.head_end in [*turn_starts(path), len(path)]
        assert split.tail_start in turn_starts(path)
        assert split.tail[0].is_prompt
        calls = {p.tool_use_id for m in split.tail for p in m.tool_uses()}
        assert all(p.tool_use_id in calls for m in split.tail for p in m.tool_results())


def test_L3_tail_grows_with_its_budget_and_reports_sizes() -> None:
    path = coding_session()
    est = Estimator()
    small = split_path(path, est, head_budget=0, tail_budget=0)
    large = split_path(path, est, head_budget=0, tail_budget=8000)
    assert len(small.tail) < len(large.tail)
    assert large.tail_tokens <= 8000
    assert small.head_tokens + small.middle_tokens + small.tail_tokens == sum(
        est.message(m) for m in path
    )
    assert small.to_dict()["tail_messages"] == len(small.tail)


def test_L3_last_turn_is_kept_even_when_over_budget() -> None:
    path = coding_session()
    split = split_path(path, Estimator(), head_budget=0, tail_budget=1)
    assert split.tail_start == turn_starts(path)[-1]


def test_L3_head_grows_with_its_budget_but_keeps_whole_turns() -> None:
    path = coding_session()
    est = Estimator()
    split = split_path(path, est, head_budget=10**6, tail_budget=0)
    assert split.head_end == turn_starts(path)[-1]
    assert not split.middle


def test_L3_single_turn_run_falls_back_to_clean_boundaries() -> None:
    path = single_turn_session()
    est = Estimator()
    assert not split_path(path, est, head_budget=0, tail_budget=2000).middle
    split = best_split(path, est, head_budget=0, tail_budget=2000)
    assert split.cuts == "boundaries" and split.middle
    assert split.tail_start in cut_points(path, "boundaries")
    assert not any(p.kind == "tool_result" for p in split.tail[0].parts)
    calls = {p.tool_use_id for m in split.tail for p in m.tool_uses()}
    assert all(p.tool_use_id in calls for m in split.tail for p in m.tool_results())
    assert split.head[0].is_prompt


def test_L3_split_leaves_the_path_unchanged() -> None:
    path = coding_session()
    before = copy.deepcopy(path)
    best_split(path, Estimator(), head_budget=100, tail_budget=100)
    assert path == before


def test_L3_empty_and_promptless_paths() -> None:
    est = Estimator()
    empty = split_path([], est, head_budget=10, tail_budget=10)
    assert (empty.head, empty.middle, empty.tail) == ((), (), ())
    tool_only = single_turn_session()[1:]
    split = split_path(tool_only, est, head_budget=10, tail_budget=10)
    assert split.head == () and split.middle == () and split.tail == tuple(tool_only)
