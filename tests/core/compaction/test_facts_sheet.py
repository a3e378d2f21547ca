"""The fact sheet: exact strings of the imaged middle, kept as text."""

from __future__ import annotations

import copy

from coding_session import FACT_STRINGS, coding_session

from explorer.compaction.estimate import Estimator
from explorer.compaction.fact_layout import expand
from explorer.compaction.facts import fact_sheet, find_facts
from explorer.compaction.split import split_path
from explorer.tree.model import text_message


def test_L3_every_id_hash_path_and_url_of_the_middle_is_in_the_sheet() -> None:
    path = coding_session()
    split = split_path(path, Estimator(), head_budget=0, tail_budget=3000)
    middle_text = "\n".join(p.text for m in split.middle for p in m.parts)
    planted = [s for s in FACT_STRINGS if s in middle_text]
    assert len(planted) >= 5
    sheet = fact_sheet(split.middle)
    for s in planted:
        assert s in sheet.values, s
        assert s in expand(sheet.text)
    whole = fact_sheet(path)
    assert all(s in whole.values for s in FACT_STRINGS)


def test_facts_of_each_kind() -> None:
    text = (
        "Run 123e4567-e89b-12d3-a456-426614174000 at commit 9fceb02 pushed to "
        "https://example.org/a/b?x=1, edited ./src/app.py and C:\\Users\\me\\x.txt, "
        "took 12.5 ms using 3.2 GB with pkg v1.2.3 and 2.0.1-rc1; call toolu_01AbCdEf23, "
        "address 0xdeadBEEF, README.md."
    )
    kinds = {f.value: f.kind for f in find_facts(text)}
    assert kinds == {
        "123e4567-e89b-12d3-a456-426614174000": "uuid",
        "9fceb02": "hash",
        "https://example.org/a/b?x=1": "url",
        "./src/app.py": "path",
        "C:\\Users\\me\\x.txt": "path",
        "12.5 ms": "quantity",
        "3.2 GB": "quantity",
        "v1.2.3": "version",
        "2.0.1-rc1": "version",
        "toolu_01AbCdEf23": "id",
        "0xdeadBEEF": "hash",
        "README.md": "path",
    }


def test_plain_prose_has_no_facts() -> None:
    assert find_facts("We decided to keep the ids opaque and move on.") == []
    assert fact_sheet([text_message(1, None, "user", "nothing exact here")]).text == ""


def test_facts_are_deduplicated_in_order_of_first_appearance() -> None:
    msgs = [
        text_message(1, None, "user", "see /etc/hosts then https://a.example/x"),
        text_message(2, 1, "assistant", "https://a.example/x again and /etc/hosts, then /tmp/y"),
    ]
    assert fact_sheet(msgs).values == ["/etc/hosts", "https://a.example/x", "/tmp/y"]


def test_the_sheet_is_capped_and_says_how_many_were_left_out() -> None:
    msgs = [text_message(i, None, "user", f"file /data/run_{i:05}/out.json") for i in range(500)]
    sheet = fact_sheet(msgs, max_chars=1000)
    assert 0 < len(sheet.facts) < 500
    assert sheet.omitted == 500 - len(sheet.facts)
    assert len(sheet.text) <= 1000
    assert f"({sheet.omitted} more left out" in sheet.text
    assert f"{sheet.omitted} paths" in sheet.text
    assert sheet.to_dict()["omitted"] == sheet.omitted


def test_fact_sheet_leaves_messages_unchanged() -> None:
    path = coding_session()
    before = copy.deepcopy(path)
    fact_sheet(path)
    assert path == before


def test_numbers_ocr_would_misread_are_facts() -> None:
    text = (
        "Fixed in export.py:142 (line 88-90) on 2026-11-28T02:15:00Z, cron at 02:15 UTC; cost "
        "$12.50 or 3 EUR, took 1h30m and 2m14s, used 12,345 tokens; 1838 of 7 tests passed, "
        "score 0.866, run #123, port 8080."
    )
    kinds = {f.value: f.kind for f in find_facts(text)}
    assert kinds == {
        "export.py:142": "location",
        "line 88-90": "line",
        "2026-11-28T02:15:00Z": "date",
        "02:15 UTC": "time",
        "$12.50": "money",
        "3 EUR": "money",
        "1h30m": "duration",
        "2m14s": "duration",
        "12,345 tokens": "quantity",
        "1838": "number",
        "0.866": "number",
        "8080": "number",
    }  # "7" has too few digits to be misread unnoticed; "#123" is a message marker


def test_bare_numbers_come_from_the_narrative_not_from_tool_output() -> None:
    from explorer.tree.model import Message, Part

    narrative = text_message(1, None, "assistant", "The export took 4711 rows and 1,250 ms.")
    output = Message(2, 1, "user", [Part("tool_result", "1001 1002 1003 took 250 ms")])
    values = fact_sheet([narrative, output]).values
    assert values == ["4711", "1,250 ms", "250 ms"]


def test_L3_strings_the_verbatim_start_or_end_hold_are_not_repeated() -> None:
    head = [text_message(1, None, "user", "Fix services/billing/export.py by 2026-12-01.")]
    said = "Edited services/billing/export.py at 9fceb02d; 2026-12-01 holds; 4711 rows"
    middle = [text_message(2, 1, "assistant", said)]
    tail = [text_message(3, 2, "assistant", "Done: 4711 rows exported.")]
    sheet = fact_sheet(middle, verbatim=[*head, *tail])
    assert sheet.values == ["9fceb02d"]
    assert sheet.in_verbatim == 3
    assert sheet.to_dict()["in_verbatim"] == 3
    assert fact_sheet(middle).values == [
        "services/billing/export.py", "9fceb02d", "2026-12-01", "4711"]


def test_numbers_rank_below_the_ids_under_the_cap() -> None:
    text = " ".join(f"took {1000 + i} ms" for i in range(200)) + " at commit 9fceb02d"
    sheet = fact_sheet([text_message(1, None, "assistant", text)], max_chars=300)
    assert "9fceb02d" in sheet.values
    assert sheet.omitted > 0
