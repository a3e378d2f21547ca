"""A provider's key goes only to that provider's own host, unless the person names the key
for another URL: with ``--key-env NAME`` or the settings' ``key_sent_to``. Otherwise the call
is refused in one line before anything is sent; ``openai-compatible`` never sends the OpenAI
key."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import run_cli
from provider_seed import seed_conversation
from provider_server import ProviderServer, ServerState

from explorer.store import Store

ANTHROPIC = "sk-ant-" + "k" * 40
OPENAI = "sk-proj-" + "o" * 40
OTHER = "sk-other-" + "x" * 30


@pytest.fixture
def untrusted(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ProviderServer, ServerState]]:
    """A loopback server nobody named for any key (unlike the ``server`` fixture)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI)
    state = ServerState()
    srv = ProviderServer(state).start()
    yield srv, state
    srv.close()


def _db(tmp_path: Path) -> str:
    with Store(tmp_path / "k.db") as s:
        seed_conversation(s, 1)
    return str(tmp_path / "k.db")


@pytest.mark.parametrize(("kind", "suffix", "home"), [
    ("anthropic", "", "api.anthropic.com"), ("openai", "/v1", "api.openai.com")])
def test_a_providers_key_is_not_sent_to_another_server_unasked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        untrusted: tuple[ProviderServer, ServerState], kind: str, suffix: str,
        home: str) -> None:
    srv, state = untrusted
    db = _db(tmp_path)
    assert run_cli(monkeypatch, ["--db", db, "send", "1", "--text", "hi", "--provider", kind,
                                 "--base-url", srv.url + suffix, "--no-summary"]) == 1
    err = capsys.readouterr().err
    assert f"refusing to send the {kind} key to {srv.url}{suffix}: it goes only to {home}" in err
    assert state.hits == []  # nothing was sent at all


def test_a_key_named_with_key_env_goes_to_the_server_given(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        untrusted: tuple[ProviderServer, ServerState]) -> None:
    srv, state = untrusted
    monkeypatch.setenv("MY_PROXY_KEY", OTHER)
    db = _db(tmp_path)
    assert run_cli(monkeypatch, ["--db", db, "send", "1", "--text", "hi", "--provider",
                                 "anthropic", "--base-url", srv.url, "--key-env", "MY_PROXY_KEY",
                                 "--no-summary"]) == 0
    assert [h.headers.get("x-api-key") for h in state.hits] == [OTHER]


def test_a_url_trusted_in_the_settings_gets_the_providers_own_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        untrusted: tuple[ProviderServer, ServerState]) -> None:
    srv, state = untrusted
    Path(os.environ["CONVO_CONFIG"]).write_text(json.dumps(
        {"providers": {"openai": {"key_sent_to": srv.url + "/v1/"}}}), encoding="utf-8")
    db = _db(tmp_path)
    assert run_cli(monkeypatch, ["--db", db, "send", "1", "--text", "hi", "--provider",
                                 "openai", "--base-url", srv.url + "/v1", "--no-summary"]) == 0
    assert [h.headers.get("authorization") for h in state.hits] == [f"Bearer {OPENAI}"]


def test_openai_compatible_never_sends_the_openai_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        untrusted: tuple[ProviderServer, ServerState]) -> None:
    srv, state = untrusted
    monkeypatch.delenv("OPENAI_COMPATIBLE_API_KEY", raising=False)
    db = _db(tmp_path)
    assert run_cli(monkeypatch, ["--db", db, "send", "1", "--text", "hi", "--provider",
                                 "openai-compatible", "--base-url", srv.url + "/v1",
                                 "--no-summary"]) == 0
    assert all(OPENAI not in json.dumps(h.headers) for h in state.hits) and state.hits
