"""Cost per branch (C5): tokens and money from measured usage, the shared prefix counted once,
subagents rolled into the call that started them, estimates and missing prices said."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from explorer.app.costs.branches import branch_json, by_branch
from explorer.app.costs.groupings import by_model, by_turn
from explorer.app.costs.prices import load_prices
from explorer.app.costs.report import cost_report, path_cost
from explorer.app.importing.demo import load_demo
from explorer.app.importing.run import import_paths
from explorer.cli import main
from explorer.store import Store
from explorer.tree.model import Message, Part, Usage
from tests.corpus import claude_code_sessions as cc

KINDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def cost_json(db: Path, conv: int, by: str, capsys: pytest.CaptureFixture[str]) -> Any:
    assert main.main(["cost", str(conv), "--db", str(db), "--by", by, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def assert_adds_up(parts: list[dict[str, Any]], total: dict[str, Any]) -> None:
    for kind in (*KINDS, "answers"):
        assert sum(p[kind] for p in parts) == total[kind], kind
    if total["cost_usd"] is not None:
        money = math.fsum(p["cost_usd"] or 0.0 for p in parts)
        assert money == pytest.approx(total["cost_usd"], abs=1e-6 * len(parts))


def branch_parts(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [data["shared"], *(b["own"] for b in data["branches"]), data["unattached_subagents"]]


def usage_on(store: Store, ids: list[int]) -> dict[str, int]:
    """Measured usage summed straight from the stored messages."""
    out = dict.fromkeys(KINDS, 0)
    for mid in ids:
        u = store.message(mid).usage
        if u is not None:
            for kind in KINDS:
                out[kind] += getattr(u, kind) or 0
    return out


@pytest.fixture
def demo_db(tmp_path: Path) -> tuple[Path, int]:
    db = tmp_path / "demo.db"
    with Store(db) as store:
        conv = load_demo(store)
    return db, conv


def test_C5_the_demos_branches_and_shared_prefix_add_up_to_its_total(
        demo_db: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    db, conv = demo_db
    data = cost_json(db, conv, "branch", capsys)
    assert_adds_up(branch_parts(data), data["total"])
    assert len(data["branches"]) == 4 and data["shared"]["answers"] > 0
    assert [b["active"] for b in data["branches"]].count(True) == 1
    with Store(db) as store:
        everything = [n.id for n in store.skeleton(conv) if n.role == "assistant"]
        assert {k: data["total"][k] for k in KINDS} == usage_on(store, everything)
        for b in data["branches"]:  # a branch with its shared prefix: its whole path, measured
            path = store.path_ids(b["leaf"])
            assert {k: b["with_shared"][k] for k in KINDS} == usage_on(store, path)
    # the demo's answers are Sonnet 4.5 and one Opus 4.1: every one is priced, none estimated
    assert data["total"]["unpriced_answers"] == 0 and not data["total"]["estimated"]
    sonnet = 25_500 * 3 + 1_303 * 15
    opus = 3_100 * 15 + 58 * 75
    assert data["total"]["cost_usd"] == pytest.approx((sonnet + opus) / 1e6)


def test_C5_by_turn_and_by_model_hold_the_same_total(
        demo_db: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    db, conv = demo_db
    turns = cost_json(db, conv, "turn", capsys)
    assert_adds_up([*turns["turns"], turns["unattached_subagents"]], turns["total"])
    models = cost_json(db, conv, "model", capsys)
    assert_adds_up(models["models"], models["total"])
    assert {m["model"] for m in models["models"]} == {"claude-sonnet-4-5", "claude-opus-4-1"}
    assert turns["total"] == models["total"]


def test_C5_a_real_claude_code_session_rolls_its_subagents_into_their_calls(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [cc.original(), *cc.subagents()]
    written, answers = cc.written_usage(files), cc.responses(files)
    agents = cc.agent_calls(cc.original())
    assert len(agents) == len(cc.subagents()) == 2
    assert {m["model"] for m in answers.values()} == {"claude-sonnet-4-5"}
    db = tmp_path / "cc.db"
    with Store(db) as store:
        [outcome] = import_paths(store, [cc.original()]).conversations
        conv = outcome.conversation_id
    data = cost_json(db, conv, "branch", capsys)
    assert_adds_up(branch_parts(data), data["total"])
    [branch] = data["branches"]
    names = {s["name"] for s in branch["subagents"]}
    assert names == set(agents)
    # the branch's own cost holds its subagents': their answers are not counted twice
    subs = branch["subagents"]
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT usage FROM messages WHERE conversation_id = ? AND "
                            "role = 'assistant'", (conv,)).fetchall()
    measured = [json.loads(u) for (u,) in rows if u]
    assert data["total"]["answers"] == len(measured) == len(answers)
    assert not data["total"]["estimated"]
    assert {k: data["total"][k] for k in KINDS} == written
    for kind in KINDS:
        total = sum(u.get(kind, 0) for u in measured)
        assert data["total"][kind] == total
        assert sum(s[kind] for s in subs) < total or total == 0
    assert all(s["input_tokens"] > 0 for s in subs)
    # every answer is Sonnet 4.5: $3 / $15 per million, cache reads 0.1x and writes 1.25x
    expected = (written["input_tokens"] * 3 + written["output_tokens"] * 15
                + written["cache_read_tokens"] * 0.3 + written["cache_write_tokens"] * 3.75) / 1e6
    assert data["total"]["cost_usd"] == pytest.approx(expected, abs=1e-5)
    assert data["unattached_subagents"]["answers"] == 0
    turns = cost_json(db, conv, "turn", capsys)
    assert_adds_up([*turns["turns"], turns["unattached_subagents"]], turns["total"])
    beside = [s["name"] for t in turns["turns"] for s in t["subagents"]]
    assert sorted(beside) == sorted(names)
    for t in turns["turns"]:
        for s in t["subagents"]:
            assert t["head"] <= s["call_message"] <= t["tail"]


def _answer(text: str, model: str = "claude-sonnet-4-5", usage: Usage | None = None,
            **meta: Any) -> Message:
    return Message(None, None, "assistant", [Part("text", text)], model=model, usage=usage,
                   source_meta=meta)


def _prompt(text: str, **meta: Any) -> Message:
    return Message(None, None, "user", [Part("text", text)], source_meta=meta)


def test_C5_an_answer_without_usage_is_estimated_and_said_to_be(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "est.db"
    with Store(db) as store:
        conv = store.create_conversation("estimates")
        ids = store.append_turn(conv, [
            _prompt("Explain the failing test in detail, please. " * 20),
            _answer("It fails because the fixture is shared between tests. " * 10),
            _prompt("And the fix?"),
            _answer("Give each test its own fixture.", usage=Usage(input_tokens=900)),
            _prompt("Thanks"),
            _answer("You're welcome.", usage=Usage(input_tokens=1000, output_tokens=5)),
        ])
    data = cost_json(db, conv, "branch", capsys)
    none, partial, full = ids[1], ids[3], ids[5]
    assert data["answers_estimated"] == {"estimated": [none], "partial": [partial]}
    assert data["total"]["estimated"] and data["total"]["estimated_answers"] == [none, partial]
    with Store(db) as store:
        report = cost_report(store, conv)
    first = report.answers[none]
    assert first.how == "estimated" and first.input > 200 and first.output > 100
    assert report.answers[partial].input == 900 and report.answers[partial].output > 0
    assert report.answers[full].how == "measured"
    assert main.main(["cost", str(conv), "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert f"1 answer(s) estimated (no usage in the file): {none}" in text
    assert f"1 answer(s) estimated (usage lacked a count): {partial}" in text


def test_C5_a_call_split_over_messages_is_counted_once_from_its_usage(tmp_path: Path) -> None:
    """Codex writes a response's reasoning, text and call as several messages and its usage on
    the last: the others add nothing and nothing is estimated."""
    with Store(tmp_path / "split.db") as store:
        conv = store.create_conversation("split")
        store.append_turn(conv, [_prompt("go"), _answer("thinking out loud", model="gpt-4.1"),
                                 _answer("done", model="gpt-4.1",
                                         usage=Usage(1000, 50, cache_read_tokens=400))])
        report = cost_report(store, conv)
    total = report.total()
    assert (total.answers, total.input, total.output, total.cache_read) == (1, 1000, 50, 400)
    assert not total.estimated
    assert total.usd == pytest.approx((1000 * 2 + 50 * 8 + 400 * 0.5) / 1e6)


def test_C5_an_unknown_model_says_no_price_and_settings_can_price_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "unknown.db"
    with Store(db) as store:
        conv = store.create_conversation("unknown")
        store.append_turn(conv, [_prompt("hi"), _answer("hello", model="mystery-model-9",
                                                        usage=Usage(2_000_000, 1_000_000))])
    data = cost_json(db, conv, "model", capsys)
    [row] = data["models"]
    assert row["price"] == "no price" and row["cost_usd"] is None
    assert row["input_tokens"] == 2_000_000 and data["total"]["no_price"] == ["mystery-model-9"]
    assert main.main(["cost", str(conv), "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "no price" in text and "no price for mystery-model-9" in text
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"prices": {"acme": {
        "cache": {"read": 0.5}, "models": {"mystery-model-9": {"input": 1, "output": 4}}}}}))
    monkeypatch.setenv("CONVO_CONFIG", str(settings))
    data = cost_json(db, conv, "model", capsys)
    assert data["total"]["cost_usd"] == pytest.approx(2 + 4)
    assert data["models"][0]["price"]["provider"] == "acme"
    assert data["prices"]["settings_override"] == ["mystery-model-9"]


def test_C5_the_price_table_is_dated_and_finds_snapshot_names() -> None:
    table = load_prices()
    assert table.date >= "2026-01-01"
    sonnet = table.lookup("claude-sonnet-4-5-20250929")
    assert sonnet is not None and (sonnet.input, sonnet.cache_read, sonnet.cache_write) == (
        3, pytest.approx(0.3), pytest.approx(3.75))
    assert table.lookup("anthropic/claude-opus-4-7") == table.lookup("claude-opus-4-7")
    assert table.lookup("gpt-4.1-mini-2025-04-14") is not None
    assert table.lookup("gpt-5.5") is None and table.lookup(None) is None


def test_C5_subagents_sit_beside_their_call_or_apart_when_it_is_missing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "agents.db"
    with Store(db) as store:
        conv = store.create_conversation("agents")
        call = Message(None, None, "assistant", [Part("tool_use", "{}", tool_name="Agent",
                                                     tool_use_id="toolu_1")],
                       model="claude-haiku-4-5", usage=Usage(100, 10))
        done = Message(None, None, "user", [Part("tool_result", "notes", tool_use_id="toolu_1")])
        main_ids = store.append_turn(conv, [_prompt("research it"), call, done])
        for use_id in ("toolu_1", "toolu_gone"):
            store.append_turn(conv, [
                _prompt("You are a researcher.", subagent=use_id, spawned_by_tool_use_id=use_id),
                _answer("found it", model="claude-haiku-4-5", usage=Usage(200, 20),
                        subagent=use_id)], as_root=True)
        report = cost_report(store, conv)
        whole_path = path_cost(report, store, main_ids[1])
        turns = by_turn(report, store)
    data = branch_json(report, by_branch(report))
    assert_adds_up(branch_parts(data), data["total"])
    [branch] = data["branches"]
    assert branch["own"]["input_tokens"] == 300  # the call's 100 and its subagent's 200
    assert [s["call_message"] for s in branch["subagents"]] == [main_ids[1]]
    orphans = data["unattached_subagents"]
    assert orphans["input_tokens"] == 200 and len(orphans["subagents"]) == 1
    assert whole_path.input == 300
    assert_adds_up([*turns["turns"], turns["unattached_subagents"]], turns["total"])
    assert by_model(report)["total"] == data["total"]


def test_C5_a_price_the_settings_file_gets_wrong_is_named_not_guessed(tmp_path: Path) -> None:
    import json

    from explorer.app.costs.prices import load_prices

    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"prices": {"openai": {"models": {
        "house-1": {"input": 1, "output": 2}, "house-2": {"input": "cheap"}}}}}))
    table = load_prices(settings)
    assert table.lookup("house-1") is not None and table.lookup("house-2") is None
    assert table.notes == ('prices.openai.models.house-2: not a price (it needs "input" and '
                           '"output" numbers); ignored',)
