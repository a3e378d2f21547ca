"""API keys: keyring first, environment second, never a crash, and never a leak."""

from __future__ import annotations

import io
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import pytest
from cli_helpers import run_cli
from helpers import BrokenKeyring, MemoryKeyring
from keyring.backends import fail
from provider_seed import seed_conversation
from provider_server import ProviderServer, ServerState, trust_server

from explorer.app.sharing.exporting import export_lines
from explorer.providers import AnthropicProvider, OpenAIProvider, ProviderError
from explorer.providers.http import HttpPolicy
from explorer.providers.keys import SERVICE, KeyStoreError, resolve_key, set_key
from explorer.store import Store
from explorer.tree.model import text_message


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def broken_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(BrokenKeyring())
    yield
    keyring.set_keyring(previous)


def test_keyring_entry_wins_over_the_environment(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_keyring.set_password(SERVICE, "anthropic", "from-keyring")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    key, status = resolve_key("anthropic")
    assert key is not None and key.reveal() == "from-keyring"
    assert status.source == "keyring" and status.keyring_available
    memory_keyring.delete_password(SERVICE, "anthropic")
    key, status = resolve_key("anthropic")
    assert key is not None and key.reveal() == "from-env" and status.source == "environment"


def test_without_a_keyring_backend_the_status_says_so_and_env_is_used(
    no_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-openai")
    key, status = resolve_key("openai")
    assert key is not None and key.reveal() == "env-openai"
    assert not status.keyring_available
    assert "no system keyring backend" in status.note
    with pytest.raises(KeyStoreError, match=r"\$OPENAI_API_KEY"):
        set_key("openai", "sk-new")


def test_a_broken_keyring_never_crashes_and_never_echoes_the_key(
    broken_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-anthropic")
    key, status = resolve_key("anthropic")
    assert key is not None and key.reveal() == "env-anthropic"
    assert "could not be read (RuntimeError)" in status.note
    with pytest.raises(KeyStoreError) as caught:
        set_key("anthropic", "sk-secret-value")
    assert "sk-secret-value" not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_an_openai_key_is_not_sent_to_a_compatible_server(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "for-openai-only")
    monkeypatch.delenv("OPENAI_COMPATIBLE_API_KEY", raising=False)
    key, status = resolve_key("openai-compatible")
    assert key is None and status.source is None


def test_keys_set_reads_stdin_and_status_lists_every_provider(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("sk-typed-in\n"))
    assert run_cli(monkeypatch, ["keys", "set", "openai"]) == 0
    assert memory_keyring.entries[(SERVICE, "openai")] == "sk-typed-in"
    assert run_cli(monkeypatch, ["keys", "status"]) == 0
    out = capsys.readouterr().out
    assert "openai: key in the system keyring" in out and "anthropic:" in out
    assert "sk-typed-in" not in out
    assert run_cli(monkeypatch, ["keys", "delete", "openai"]) == 0
    assert (SERVICE, "openai") not in memory_keyring.entries


def test_keys_set_without_a_backend_fails_with_one_clear_line(
    no_keyring: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("sk-x\n"))
    assert run_cli(monkeypatch, ["keys", "set", "anthropic"]) == 1
    err = capsys.readouterr().err
    assert "no system keyring backend" in err and "ANTHROPIC_API_KEY" in err


def _raw_files(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


def test_a_planted_key_appears_nowhere(
    tmp_path: Path, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch,
    server: ProviderServer, state: ServerState, caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str], policy: HttpPolicy,
) -> None:
    key = "sk-ant-api03-" + secrets.token_hex(24)
    env_key = "sk-ant-env-" + secrets.token_hex(24)
    openai_key = "sk-proj-" + secrets.token_hex(24)
    memory_keyring.set_password(SERVICE, "anthropic", key)
    monkeypatch.setenv("ANTHROPIC_API_KEY", env_key)
    monkeypatch.setenv("OPENAI_API_KEY", openai_key)
    monkeypatch.setenv("CONVO_CONFIG", str(tmp_path / "settings.json"))
    trust_server(server)  # the loopback server stands in for both providers' hosts
    caplog.set_level(logging.DEBUG)
    state.anthropic_key, state.openai_key = key, openai_key
    db = tmp_path / "leak.db"
    with Store(db) as s:
        conv = seed_conversation(s, 2)
        # a prompt that talks about keys must not make the key appear either
        s.append_turn(conv, [text_message(None, None, "user", "which key do you use?"),
                             text_message(None, None, "assistant", "the configured one")])
    base = ["--db", str(db)]
    assert run_cli(monkeypatch, [*base, "send", str(conv), "--text", "hello",
                                 "--base-url", server.url, "--provider", "anthropic"]) == 0
    assert run_cli(monkeypatch, [*base, "send", str(conv), "--text", "and openai?",
                                 "--provider", "openai", "--base-url", server.url + "/v1"]) == 0
    assert state.hits[0].headers["x-api-key"] == key  # the key did reach the provider
    assert state.hits[1].headers["authorization"] == f"Bearer {openai_key}"
    raw_during = _raw_files(db)

    state.anthropic_key = state.openai_key = "rotated"  # now both keys are refused
    assert run_cli(monkeypatch, [*base, "send", str(conv), "--text", "fail",
                                 "--base-url", server.url]) == 1
    assert run_cli(monkeypatch, [*base, "send", str(conv), "--text", "fail", "--provider",
                                 "openai", "--base-url", server.url + "/v1"]) == 1
    errors: list[str] = []
    for provider in (
        AnthropicProvider("claude-sonnet-4-5", resolve_key("anthropic")[0], server.url, 64,
                          policy),
        OpenAIProvider("gpt-4.1", resolve_key("openai")[0], server.url + "/v1", False, 64,
                       policy),
    ):
        with pytest.raises(ProviderError) as caught:
            provider.complete([text_message(None, None, "user", "x")])
        errors += [str(caught.value), repr(caught.value), repr(provider)]
    assert "Incorrect API key provided" in "".join(errors)  # OpenAI echoes a masked key

    with Store(db) as s:
        export = "\n".join(export_lines(s, conv))
    assert run_cli(monkeypatch, ["keys", "status"]) == 0
    captured = capsys.readouterr()
    logs = caplog.text + "\n".join(r.getMessage() for r in caplog.records)
    texts = {"stdout": captured.out, "stderr": captured.err, "logs": logs, "export": export,
             "errors": "\n".join(errors)}
    assert "Answer to: hello" in captured.out and "authentication" in captured.err
    assert any(r.name.startswith("httpx") for r in caplog.records)  # DEBUG logging was on
    for secret in (key, env_key, openai_key):
        assert secret.encode() not in raw_during + _raw_files(db)
        for where, text in texts.items():
            assert secret not in text, f"the key leaked into {where}"
