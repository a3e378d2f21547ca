"""SPEC X1 at any node: ``convo context CONV --at MSG`` shows the request the model received
there, byte for byte what ``send`` posted; ``--diff B`` says how two contexts differ.

A loopback server records what ``send`` posts; the context at the answer it stored is then
asked for (with the same flags, and with none: the compaction record names its target).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli
from provider_seed import seed_conversation
from provider_server import ProviderServer, ServerState
from test_X1_preview_is_sent import base_url, images

from explorer.app.context.at import context_at
from explorer.app.context.diff import diff
from explorer.compaction.target import Target
from explorer.store import Store

TARGET = ["--window", "40000", "--max-tokens", "1000"]


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _cli_json(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
              argv: list[str]) -> Any:
    capsys.readouterr()
    assert run_cli(monkeypatch, [*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_X1_the_context_at_an_answer_is_the_request_that_produced_it(
    kind: str, tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed_conversation(s, 60, chars=1250)
    target = ["--provider", kind, *TARGET]
    sent = _cli_json(monkeypatch, capsys, ["--db", str(db), "send", str(conv), "--text",
                                           "what next?", *target, "--base-url",
                                           base_url(kind, server), "--no-summary"])
    assert sent["compaction"]  # the ladder ran: the context holds pages
    (hit,) = state.hits
    answer = sent["answer_id"]
    for flags in (target, ["--provider", kind]):  # the record names the target it was sent to
        out = tmp_path / f"ctx-{len(flags)}"
        shown = _cli_json(monkeypatch, capsys, ["--db", str(db), "context", str(conv), "--at",
                                                str(answer), *flags, "--out", str(out)])
        body = json.loads((out / "request.json").read_text(encoding="utf-8"))
        assert body == hit.body
        pngs = [p.read_bytes() for p in sorted(out.glob("page-*.png"))]
        assert pngs and pngs == images(body)
        kinds = {p["kind"] for p in shown["parts"]}
        assert {"page", "intro"} <= kinds
        assert next(p for p in shown["parts"] if p["section"] == "prompt")["text"] == "what next?"
        assert shown["tokens"]["middle"] > 0 and shown["rungs"] == sent["compaction"]


def test_X1_the_context_at_a_node_adds_up_to_what_is_sent(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as s:
        conv = seed_conversation(s, 40, chars=1250)
        at = s.path(conv)[30].id
        target = Target.default("anthropic", window=12_000, output_reserve=1000)
        ctx = context_at(s, conv, int(at), target)
        parts = ctx.parts()
    assert ctx.plan.pages  # compacted at this window
    assert sum(p.tokens for p in parts) + ctx.plan.estimator.overhead == ctx.tokens
    assert [p.section for p in parts if p.section == "prompt"] == ["prompt"]
    assert parts[-1].message_id == at  # a prompt: the request ends with it
    assert {p.state for p in parts if p.section == "middle"} == {"paged"}


def test_X1_the_context_at_an_answer_ends_with_its_prompt(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as s:
        conv = seed_conversation(s, 4)
        path = s.path(conv)
        ctx = context_at(s, conv, int(path[5].id), Target.default("openai"))
    assert [m.id for m in ctx.sent] == [m.id for m in path[:5]]
    assert ctx.prompt == 1 and ctx.plan.rungs == ()


def test_X1_diff_names_what_was_folded_into_pages_and_what_entered(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as s:
        conv = seed_conversation(s, 40, chars=1250)
        path = s.path(conv)
        target = Target.default("anthropic", window=12_000, output_reserve=1000)
        a = context_at(s, conv, int(path[9].id), target)  # five turns: fits, all verbatim
        b = context_at(s, conv, int(path[-1].id), target)  # the tip: its middle is imaged
        d = diff(a, b)
    assert a.plan.rungs == () and b.plan.pages
    by_id = {r.message_id: r for r in d.rows}
    middle = {m.id for m in b.plan.split.middle} if b.plan.split else set()
    folded = [r for r in d.rows if r.change == "folded into pages"]
    assert folded and all(r.message_id in middle for r in folded)
    assert all(r.a.state == "verbatim" and r.b.state == "paged" for r in folded)
    assert by_id[path[-2].id].change == "entered"  # the tip's prompt was not sent at A
    assert by_id[path[0].id].change == "same"  # the head stays verbatim
    totals = d.totals()
    assert totals["entered"]["tokens_a"] == 0 and totals["entered"]["tokens_b"] > 0
    assert d.to_dict()["b"]["pages"] == len(b.plan.pages)


def test_context_at_refuses_a_message_of_another_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "x.db"
    with Store(db) as s:
        one = seed_conversation(s, 2)
        two = seed_conversation(s, 2)
        other = s.path(two)[-1].id
    assert run_cli(monkeypatch, ["--db", str(db), "context", str(one), "--at",
                                 str(other)]) != 0
    assert "not in conversation" in capsys.readouterr().err
    assert run_cli(monkeypatch, ["--db", str(db), "context", str(one), "--diff", "1"]) != 0
