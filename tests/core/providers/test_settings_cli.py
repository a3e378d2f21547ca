"""The settings file and the model commands of ``convo``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_cli
from helpers import MemoryKeyring
from provider_seed import seed_conversation
from provider_server import ProviderServer, ServerState

from explorer.providers.settings import (
    DEFAULTS,
    ProviderSettings,
    Settings,
    load_settings,
    save_settings,
    settings_path,
)
from explorer.store import Store


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cfg" / "settings.json"
    monkeypatch.setenv("CONVO_CONFIG", str(path))
    return path


def test_settings_default_when_missing_and_round_trip(config: Path) -> None:
    assert settings_path() == config
    assert load_settings().provider == "anthropic"
    settings = Settings(provider="openai-compatible")
    settings.providers["openai-compatible"] = ProviderSettings("http://127.0.0.1:8080/v1",
                                                               "qwen", 32_768, 2048)
    save_settings(settings)
    again = load_settings()
    assert again.provider == "openai-compatible"
    assert again.for_provider() == ProviderSettings("http://127.0.0.1:8080/v1", "qwen", 32_768,
                                                    2048)
    assert again.for_provider("anthropic") == DEFAULTS["anthropic"]


@pytest.mark.parametrize(("content", "note"), [
    ("{not json", "unreadable"),
    ("[1, 2]", "not a JSON object"),
    ('{"provider": "mistral"}', "unknown provider 'mistral'"),
    ('{"providers": {"openai": {"window": "big", "model": "gpt-x"}}}', "openai.window"),
])
def test_a_damaged_settings_file_gives_defaults_and_a_note(
    config: Path, content: str, note: str
) -> None:
    config.parent.mkdir(parents=True)
    config.write_text(content)
    settings = load_settings()
    assert any(note in n for n in settings.notes)
    assert settings.for_provider("openai").window == DEFAULTS["openai"].window


def test_model_commands_take_their_defaults_from_the_settings_file(
    config: Path, tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    memory_keyring: MemoryKeyring,
) -> None:
    monkeypatch.delenv("OPENAI_COMPATIBLE_API_KEY", raising=False)
    settings = Settings(provider="openai-compatible")
    settings.providers["openai-compatible"] = ProviderSettings(server.url + "/v1", "local-model",
                                                               50_000, 128)
    save_settings(settings)
    db = tmp_path / "c.db"
    with Store(db) as s:
        conv = seed_conversation(s, 2)
        prompt, answer = (m.id for m in s.path(conv)[-2:])
    argv = ["--db", str(db)]
    assert run_cli(monkeypatch, [*argv, "send", str(conv), "--text", "local please"]) == 0
    body = state.hits[-1].body
    assert body is not None and body["model"] == "local-model" and body["max_tokens"] == 128
    out = capsys.readouterr()
    assert "Answer to: local please" in out.out and "stored messages" in out.err

    assert run_cli(monkeypatch, [*argv, "rerun", str(conv), str(prompt), "--text", "edited",
                                 "--model", "other", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["text"] == "Answer to: edited" and state.hits[-1].body["model"] == "other"
    assert run_cli(monkeypatch, [*argv, "edit", str(conv), str(prompt), "--text", "edit-run",
                                 "--run", "--json"]) == 0
    edited = json.loads(capsys.readouterr().out)
    assert edited["text"] == "Answer to: edit-run"
    assert run_cli(monkeypatch, [*argv, "regenerate", str(conv), str(answer), "--json"]) == 0
    regenerated = json.loads(capsys.readouterr().out)
    with Store(db) as s:
        assert s.message(regenerated["answer_id"]).parent_id == prompt
        assert s.message(payload["answer_id"]).parent_id == payload["message_ids"][0]
        assert s.message(answer).parent_id == prompt  # the first answer is still there
        assert prompt in s.siblings(edited["message_ids"][0])


def test_a_cloud_provider_without_a_key_fails_before_any_request(
    config: Path, tmp_path: Path, server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    memory_keyring: MemoryKeyring,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    db = tmp_path / "c.db"
    with Store(db) as s:
        conv = seed_conversation(s, 1)
    assert run_cli(monkeypatch, ["--db", str(db), "send", str(conv), "--text", "x",
                                 "--base-url", server.url]) == 1
    assert "no anthropic API key" in capsys.readouterr().err
    assert state.hits == []


def test_gemini_is_a_provider_the_settings_can_choose(config: Path) -> None:
    config.parent.mkdir(parents=True)
    config.write_text('{"provider": "gemini"}')
    settings = load_settings()
    assert settings.provider == "gemini" and settings.notes == []
    assert settings.for_provider().model.startswith("gemini-")
