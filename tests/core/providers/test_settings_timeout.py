"""A provider's ``timeout`` in the settings file: how long each try waits for the answer's
first byte when ``--timeout`` is not given; a bad one refuses the call in one line."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from cli_helpers import run_cli
from helpers import MemoryKeyring
from provider_seed import seed_conversation
from provider_server import ProviderServer, ServerState

from explorer.providers.settings import Settings, load_settings, save_settings
from explorer.store import Store

NEVER = 60.0
"""How long the server holds a "slow" request: far past any timeout these tests set."""


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: ProviderServer,
          state: ServerState, memory_keyring: MemoryKeyring) -> tuple[Path, Path, int]:
    """(settings file, database, conversation) for Anthropic calls to the loopback server."""
    config = tmp_path / "cfg" / "settings.json"
    config.parent.mkdir()
    monkeypatch.setenv("CONVO_CONFIG", str(config))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-timeout-test")
    state.slow_seconds = NEVER
    db = tmp_path / "c.db"
    with Store(db) as s:
        conv = seed_conversation(s, 1)
    return config, db, conv


def _settings(config: Path, server: ProviderServer, **anthropic: object) -> None:
    config.write_text(json.dumps({"provider": "anthropic", "providers": {"anthropic": {
        "base_url": server.url, "key_sent_to": server.url, **anthropic}}}))


def _send(monkeypatch: pytest.MonkeyPatch, db: Path, conv: int, *flags: str) -> tuple[int, float]:
    start = time.monotonic()
    code = run_cli(monkeypatch, ["--db", str(db), "send", str(conv), "--text", "hi", *flags])
    return code, time.monotonic() - start


def test_the_timeout_setting_gives_up_on_a_try_that_never_answers(
    setup: tuple[Path, Path, int], server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    config, db, conv = setup
    _settings(config, server, timeout=0.3)
    state.faults.append("slow")  # the first try is never answered; the next one is
    code, took = _send(monkeypatch, db, conv)
    err = capsys.readouterr().err
    assert code == 0, err
    assert "convo: waiting for the first byte (at most 0.3 s a try, 4 tries)" in err
    assert "no answer within the timeout" in err and "trying again in 1 s" in err
    assert len(state.hits) == 2
    assert took < NEVER / 4  # 0.3 s, the 1 s pause and the answer: not the server's minute


def test_the_timeout_flag_wins_over_the_setting(
    setup: tuple[Path, Path, int], server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    config, db, conv = setup
    _settings(config, server, timeout=NEVER * 2)
    state.faults.append("slow")
    code, took = _send(monkeypatch, db, conv, "--timeout", "0.2")
    err = capsys.readouterr().err
    assert code == 0, err
    assert "(at most 0.2 s a try, 4 tries)" in err and len(state.hits) == 2
    assert took < NEVER / 4


@pytest.mark.parametrize("bad", [0, -5, "fast", True, None])
def test_a_timeout_setting_that_is_not_a_positive_number_refuses_the_call_naming_it(
    bad: object, setup: tuple[Path, Path, int], server: ProviderServer, state: ServerState,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    config, db, conv = setup
    _settings(config, server, timeout=bad)
    code, _ = _send(monkeypatch, db, conv)
    err = capsys.readouterr().err
    if bad is None:  # null: not set, the default
        assert code == 0 and "(at most 120 s a try" in err
        return
    assert code == 1 and state.hits == []
    assert err == (f"convo: error: the setting anthropic.timeout in {config} is {bad!r}, "
                   "not a positive number of seconds (nothing was stored)\n")
    assert run_cli(monkeypatch, ["--db", str(db), "send", str(conv), "--text", "hi",
                                 "--timeout", "5"]) == 0  # the flag does not need it


def test_the_timeout_setting_is_saved_only_when_set(tmp_path: Path) -> None:
    config = tmp_path / "settings.json"
    settings = Settings()
    save_settings(settings, config)
    assert "timeout" not in json.loads(config.read_text())["providers"]["anthropic"]
    settings.providers["anthropic"] = replace(settings.providers["anthropic"], timeout=45)
    save_settings(settings, config)
    assert json.loads(config.read_text())["providers"]["anthropic"]["timeout"] == 45
    again = load_settings(config)
    assert again.timeout("anthropic") == 45.0 and again.notes == []
