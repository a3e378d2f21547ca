"""SPEC R1 for what is sent: the body ``send`` posts and the preview's ``request.json`` carry
no planted secret and list what was replaced; the stored prompt keeps it exactly;
``--no-redact`` sends it as asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_cli
from helpers import assistant, user
from provider_seed import seed_conversation
from provider_server import ProviderServer, ServerState
from test_X1_preview_is_sent import base_url

from explorer.store import Store

SECRET = "sk-proj-Zq8vN3xW7yT2uK9pL4mR6sJ1hG5fD0aBcE3iO8nQ"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_R1_send_posts_no_planted_secret_and_stores_the_prompt_exactly(
    kind: str, tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed_conversation(s, 3)
        s.append_turn(conv, [
user(f"the key is {SECRET}"), assistant("ok")])
    flags = ["--provider", kind, "--base-url", base_url(kind, server), "--no-summary"]
    assert run_cli(monkeypatch, ["--db", str(db), "send", str(conv), "--text",
                                 f"and again {SECRET}", *flags, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    (hit,) = state.hits
    posted = json.dumps(hit.body)
    assert SECRET not in posted and "[redacted: openai-key]" in posted
    assert any(n.startswith("redacted ") and "openai-key" in n for n in result["notes"])
    with Store(db) as s:
        prompt = s.message(result["message_ids"][0])
    assert prompt.text == f"and again {SECRET}"  # stored exactly
    assert run_cli(monkeypatch, ["--db", str(db), "send", str(conv), "--text", "once more",
                                 *flags, "--no-redact", "--json"]) == 0
    assert SECRET in json.dumps(state.hits[-1].body)


def test_R1_the_preview_request_carries_no_secret_and_notes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = tmp_path / "x.db"
    with Store(db) as s:
        conv = seed_conversation(s, 3)
        s.append_turn(conv, [user(f"export OPENAI_API_KEY={SECRET}"), assistant("ok")])
    out = tmp_path / "p"
    assert run_cli(monkeypatch, ["--db", str(db), "compact", str(conv), "--provider",
                                 "anthropic", "--preview", str(out)]) == 0
    assert SECRET not in (out / "request.json").read_text(encoding="utf-8")
    plan = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    assert any("openai-key" in n for n in plan["notes"])

