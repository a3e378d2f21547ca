"""L8 with X1: a string pinned on the command line is on the fact sheet of the next request
``convo send`` posts, byte for byte the preview's body."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_cli
from provider_seed import prose, seed_conversation
from provider_server import ProviderServer, ServerState
from test_X1_preview_is_sent import assert_sent_is_preview, preview, send

from explorer.store import Store
from explorer.tree.model import Message, Part

DECISION = "Let's ship build 7f3a9c2e1b from the release branch, not main."


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def test_L8_a_pinned_string_rides_in_the_next_request_body(
    tmp_path: Path, server: ProviderServer, state: ServerState, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed_conversation(s, 20, chars=1250)
        s.append_turn(conv, [
            Message(id=None, parent_id=None, role="user", parts=[Part("text", DECISION)]),
            Message(id=None, parent_id=None, role="assistant", parts=[Part("text", "Shipping.")]),
        ])
        for t in range(40):
            s.append_turn(conv, [
                Message(id=None, parent_id=None, role="user", parts=[Part("text", prose(t, 1250))]),
                Message(id=None, parent_id=None, role="assistant",
                        parts=[Part("text", prose(t + 100, 1250))]),
            ])
    target = ["--provider", "anthropic", "--window", "40000", "--max-tokens", "1000"]
    capsys.readouterr()
    assert run_cli(monkeypatch, ["--db", str(db), "compact", str(conv), *target, "--rung",
                                 "snapshot", "--loss-report", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    item = next(i for i in data["items"] if i["kind"] == "decision")
    assert (item["text"], item["destination"]) == (DECISION, "page")  # pixels only, until pinned
    lost = item["text"]
    assert run_cli(monkeypatch, ["--db", str(db), "compact", str(conv), "--pin", lost]) == 0
    shown, _ = preview(monkeypatch, db, conv, tmp_path / "p", target)
    send(monkeypatch, db, conv, "anthropic", server, target)
    (hit,) = state.hits
    assert hit.body is not None
    assert_sent_is_preview(hit.body, shown, "anthropic")
    sheets = [b["text"] for m in hit.body["messages"] for b in m["content"]
              if isinstance(b, dict) and b.get("type") == "text" and "pinned: " in b["text"]]
    assert len(sheets) == 1 and f"pinned: {lost}" in sheets[0]
