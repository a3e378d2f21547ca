"""L8: before a compaction, every exact string of the discarded middle is listed with where it
goes (kept verbatim, fact sheet, page and line, summary request, nowhere), and pins ride on
the fact sheet."""

from __future__ import annotations

import json

from coding_session import COMMIT_SHA, Builder, coding_session

from explorer.compaction import planner
from explorer.compaction.fact_layout import PINNED_NOTE, expand
from explorer.compaction.facts import fact_sheet, find_facts
from explorer.compaction.glyph_atlas import glyph_atlas
from explorer.compaction.loss_items import decisions, items
from explorer.compaction.loss_report import BUCKETS, loss_report
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.page_lines import PageIndex, legible_chars
from explorer.compaction.snapshot_render import _Layout, normalize, to_entries
from explorer.compaction.target import Target
from explorer.tree.model import Message, Part, text_message


def _report(path: list[Message], target: Target, pins: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    plan = planner.build_plan(path, target, rung="snapshot", pins=pins)
    return plan, loss_report(path, plan, target.geometry, pins)


def test_L8_counts_add_up_and_destinations_follow_the_split() -> None:
    path = coding_session()
    plan, report = _report(path, Target.default("anthropic", tier="legible"))
    assert plan.split is not None and plan.pages
    counts = report.counts()
    assert sum(c["total"] for c in counts.values()) == len(report.entries)
    for c in counts.values():
        assert sum(c[b] for b in BUCKETS) == c["total"]
    middle = {m.id for m in plan.split.middle}
    verbatim = "\n".join(p.text for m in (*plan.split.head, *plan.split.tail) for p in m.parts)
    for e in report.entries:
        if e.item.message_id in middle and e.item.text not in verbatim:
            assert e.destination != "verbatim"
        if e.destination == "verbatim":
            assert e.item.text in verbatim
        if e.destination == "page":
            assert 1 <= e.page <= len(plan.pages) and 1 <= e.line <= target_rows(plan)
        if e.destination == "fact_sheet":
            assert plan.facts is not None
    kinds = {e.item.kind for e in report.entries}
    assert {"command", "path"} <= kinds
    assert any(e.item.text == COMMIT_SHA for e in report.entries)


def target_rows(plan) -> int:  # type: ignore[no-untyped-def]
    return max(1, max(p.rows for p in plan.pages))


def test_L8_page_and_line_are_where_the_renderer_draws_the_string() -> None:
    b = Builder()
    filler = " ".join(f"word{i}" for i in range(3000))
    for i in range(6):
        text = f"turn {i}: {filler} marker-{i}-e3b0c44298fc1c149afbf4c8996fb9 end"
        b.add("user", Part("text", text))
        b.add("assistant", Part("text", f"ok {i}"))
    geometry = page_geometry("anthropic", "claude-sonnet-4-5", "legible")
    middle = b.path[2:10]
    index = PageIndex(middle, geometry)
    atlas = glyph_atlas(geometry.font, geometry.cell_width, geometry.cell_height)
    layout = _Layout(geometry.columns, atlas, geometry.spaced_marks)
    for entry in to_entries(middle):
        layout.add(entry)
    rows = [r.text for r in layout.finish()]
    assert index.rows == len(rows)
    for m in middle[::2]:
        needle = m.parts[0].text.split()[-2]  # marker-N-<hex>
        place = index.place(m, needle)
        assert place is not None
        row = place.page * geometry.rows + place.line - 1
        joined = rows[row] + (rows[row + 1] if row + 1 < len(rows) else "")
        assert normalize(needle) in joined and needle[:3] in rows[row]


def test_L8_read_back_proxy_refuses_glyphs_close_to_another() -> None:
    dense = legible_chars("5x8", 5, 8)
    assert "0" not in dense and "|" not in dense and "x" in dense
    roomy = legible_chars("10x20", 10, 20)
    assert set("0123456789abcdef") <= roomy and "|" not in roomy


def test_L8_fact_sheet_writes_a_json_number_beside_its_name() -> None:
    m = Message(1, None, "assistant", [Part("tool_use", json.dumps(
        {"duration_ms": 8127, "tokens": 837, "count": 488}), tool_name="Report",
        tool_use_id="t1")])
    text = fact_sheet([m]).text
    assert "duration_ms 8127" in text and "tokens 837" in text
    assert "8127; 837; 488" not in text


def test_L8_code_names_are_not_file_paths() -> None:
    code = "data = res.json()\nw = font.h * 2\nfrom shop.db import session\nx = cfg.json['a']"
    assert [f.value for f in find_facts(code) if f.kind == "path"] == []
    prose = "I edited font.h and notes.md."
    assert [f.value for f in find_facts(prose) if f.kind == "path"] == ["font.h", "notes.md"]


def test_L8_items_take_commands_errors_and_decisions() -> None:
    b = Builder()
    b.add("user", Part("text", "Let's keep the cache. Don't touch the schema. Why is it slow?"))
    b.call("Bash", json.dumps({"command": "pytest -x tests/core"}),
           "Traceback (most recent call last):\n  File x\nValueError: bad port 8080", error=True)
    found = {(i.kind, i.text) for i in items(b.path)}
    assert ("command", "pytest -x tests/core") in found
    assert ("error", "ValueError: bad port 8080") in found
    assert ("decision", "Let's keep the cache.") in found
    assert ("decision", "Don't touch the schema.") in found
    assert decisions("Why is it slow?") == []
    b.call("Read", json.dumps({"file_path": "src/app.py"}), "Line 40: x = 1")
    assert ("path", "src/app.py:40") in {(i.kind, i.text) for i in items(b.path)}


def test_L8_a_pin_joins_the_fact_sheet_which_says_it_grew() -> None:
    path = coding_session()
    target = Target.default("anthropic", tier="legible")
    plan, before = _report(path, target)
    lost = next(e for e in before.entries if e.destination in ("page", "nowhere")
                and e.item.kind in ("command", "error"))
    pins = (lost.item.text, "a string no message holds")
    plan, after = _report(path, target, pins)
    assert plan.facts is not None
    assert f"pinned: {lost.item.text}" in plan.facts.text
    assert PINNED_NOTE.format(n=1) in plan.facts.text
    assert lost.item.text in expand(plan.facts.text)
    again = next(e for e in after.entries if e.item.text == lost.item.text)
    assert (again.destination, again.pinned) == ("fact_sheet", True)
    assert after.pins == {lost.item.text: "fact_sheet", "a string no message holds": "stale"}
    assert plan.parameters["pins"] == list(pins)


def test_L8_nothing_to_compact_lists_nothing() -> None:
    path = [text_message(1, None, "user", "hello"), text_message(2, 1, "assistant", "hi")]
    plan = planner.build_plan(path, Target.default("anthropic"))
    report = loss_report(path, plan, None)
    assert plan.rungs == () and report.entries == []
