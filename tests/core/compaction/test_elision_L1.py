"""L1: elision of old, uneventful tool results."""

from __future__ import annotations

import copy

from coding_session import Builder, coding_session, listing

from explorer.compaction.elision import elide, elision_marker, protected_from, tool_names
from explorer.tree.model import Message, Part
from explorer.tree.turns import split_turns


def _result(path: list[Message], tool_use_id: str) -> Part:
    return next(
        p for m in path for p in m.parts if p.tool_use_id == tool_use_id and p.kind == "tool_result"
    )


def _ids_by_tool(path: list[Message], tool: str) -> list[str]:
    return [
        p.tool_use_id or ""
        for m in path
        for p in m.parts
        if p.kind == "tool_use" and p.tool_name == tool
    ]


def test_L1_old_result_becomes_a_marker_naming_tool_and_size() -> None:
    path = coding_session()
    first_bash = _ids_by_tool(path, "Bash")[0]
    original = _result(path, first_bash)
    out, report = elide(path)
    elided = _result(out, first_bash)
    assert elided.kind == "tool_result" and elided.tool_use_id == first_bash
    assert elided.text == f"[elided: Bash result, {len(original.text):,} chars]"
    assert elided.meta["elided"] == {"tool": "Bash", "chars": len(original.text)}
    assert any(r.label == "Bash" and r.size == len(original.text) for r in report.removed)


def test_L1_read_result_names_read() -> None:
    path = coding_session()
    read_id = _ids_by_tool(path, "Read")[0]
    out, _ = elide(path)
    assert _result(out, read_id).text.startswith("[elided: Read result, ")


def test_L1_error_results_are_kept() -> None:
    path = coding_session()
    errors = [p for m in path for p in m.parts if p.is_error]
    assert errors
    out, _ = elide(path)
    assert [p for m in out for p in m.parts if p.is_error] == errors


def test_L1_the_last_turns_are_protected() -> None:
    path = coding_session()
    out, _ = elide(path, keep_turns=3)
    start = split_turns(path)[-3].start
    assert out[start:] == path[start:]
    assert protected_from(path, 3) == start
    assert out[:start] != path[:start]


def test_L1_keep_turns_bounds() -> None:
    path = coding_session()
    assert elide(path, keep_turns=100)[0] == path
    everything, report = elide(path, keep_turns=0)
    big = [
        p
        for m in path
        for p in m.parts
        if p.kind == "tool_result" and not p.is_error and len(p.text) > 256
    ]
    assert report.count == len(big)
    assert all(
        "elided" in p.meta
        for m in everything
        for p in m.parts
        if p.kind == "tool_result" and len(p.text) > 256 and not p.is_error
    )


def test_L1_small_results_are_not_worth_a_marker() -> None:
    path = coding_session()
    out, _ = elide(path, keep_turns=0)
    small = [
        p
        for m in out
        for p in m.parts
        if p.kind == "tool_result" and len(p.text) < 60 and "elided" not in p.meta
    ]
    assert any(p.text == "The file was updated." for p in small)


def test_L1_user_and_assistant_text_untouched_and_pairs_kept() -> None:
    path = coding_session()
    out, _ = elide(path, keep_turns=0)
    assert len(out) == len(path)
    for a, b in zip(path, out, strict=True):
        assert [p for p in a.parts if p.kind != "tool_result"] == [
            p for p in b.parts if p.kind != "tool_result"
        ]
        assert [(p.tool_use_id, p.is_error) for p in a.tool_results()] == [
            (p.tool_use_id, p.is_error) for p in b.tool_results()
        ]


def test_L1_input_is_not_mutated_and_rung_is_idempotent() -> None:
    path = coding_session()
    before = copy.deepcopy(path)
    once, report = elide(path)
    assert path == before
    twice, again = elide(once)
    assert twice == once and again.count == 0
    assert report.size_removed > 0


def test_L1_result_without_a_matching_call_is_named_tool() -> None:
    b = Builder()
    b.add("user", Part("text", "go"))
    b.add("user", Part("tool_result", listing(50), tool_use_id="ghost"))
    for n in range(3):
        b.add("user", Part("text", f"turn {n}"))
        b.add("assistant", Part("text", "ok"))
    out, _ = elide(b.path)
    assert out[1].parts[0].text == elision_marker("tool", len(listing(50)))
    assert tool_names(b.path) == {}


def test_L1_report_is_json_ready() -> None:
    _, report = elide(coding_session())
    d = report.to_dict()
    assert d["rung"] == "elide" and d["count"] == len(d["removed"]) > 0
    assert d["size_removed"] == sum(r["size"] for r in d["removed"])
