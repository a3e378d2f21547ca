"""A branch handed to Codex resumes under the person's own Codex: the provider its
``config.toml`` names (or none), and the version its newest rollout was written with (H1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agent_home import claude_session, codex_rollout
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.run import import_paths
from explorer.app.sharing.handoff import handoff
from explorer.cli.main import main
from explorer.formats import codex

CLAUDE = claude_session()
CODEX = codex_rollout()  # the recorded Codex session resumed twice


def _meta(tmp_path: Path, session: Path, env: Environment) -> dict[str, object]:
    with new_store(tmp_path) as store:
        cid = import_paths(store, [session]).conversations[0].conversation_id
        done = handoff(store, cid, "codex", env=env)
    first = json.loads(done.path.read_text().splitlines()[0])
    assert first["type"] == "session_meta"
    payload: dict[str, object] = first["payload"]
    return payload


def test_H1_claude_code_to_codex_names_no_provider_when_codex_names_none(
    tmp_path: Path
) -> None:
    payload = _meta(tmp_path, CLAUDE, Environment(tmp_path / "home"))
    assert "model_provider" not in payload  # "openai" would stop an Ollama or Azure Codex


def test_H1_the_provider_is_the_one_config_toml_names_under_codex_home(
    tmp_path: Path
) -> None:
    codex_home = tmp_path / "elsewhere"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text('model = "llama3"\nmodel_provider = "ollama"\n')
    env = Environment(tmp_path / "home", {"CODEX_HOME": str(codex_home)})
    assert _meta(tmp_path, CLAUDE, env)["model_provider"] == "ollama"
    # a Codex session keeps the provider the person now uses, not the one it was made with
    assert _meta(tmp_path / "b", CODEX, env)["model_provider"] == "ollama"


def test_H1_the_active_profile_chooses_the_provider(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        'model_provider = "openai"\nprofile = "work"\n\n'
        '[profiles.work]\nmodel_provider = "azure"\n')
    assert _meta(tmp_path, CLAUDE, Environment(home))["model_provider"] == "azure"


def test_H1_the_cli_version_is_the_newest_rollouts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    day = home / ".codex" / "sessions" / "2030" / "01" / "02"
    day.mkdir(parents=True)
    for stamp, version in (("2030-01-02T10-00-00", "0.300.0"), ("2030-01-01T10-00-00", "0.1")):
        record = {"type": "session_meta", "payload": {"id": "x", "cli_version": version}}
        (day / f"rollout-{stamp}-x{version}.jsonl").write_text(json.dumps(record) + "\n")
    assert _meta(tmp_path, CODEX, Environment(home))["cli_version"] == "0.300.0"


def test_the_cli_says_codex_lists_a_fresh_handoff_only_after_a_resume_by_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    db = str(tmp_path / "h.db")
    assert main(["import", "--db", db, str(CODEX)]) == 0
    capsys.readouterr()
    assert main(["handoff", "1", "--agent", "codex", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "resume it with: cd " in out and "resumed once by id" in out
    assert main(["handoff", "1", "--agent", "claude-code", "--db", db]) == 0
    assert "resumed once by id" not in capsys.readouterr().out


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_H1_each_handed_turn_carries_the_context_codex_already_sent(
    tmp_path: Path
) -> None:
    """Codex resumes from its last ``turn_context``: with none it sends its instructions and
    environment again after the branch; with the session's own, nothing is resent."""
    with new_store(tmp_path) as store:
        cid = import_paths(store, [CODEX]).conversations[0].conversation_id
        done = handoff(store, cid, "codex", env=Environment(tmp_path / "home"))
    written = _records(done.path)
    original = _records(CODEX)
    kinds = [(r["type"], r["payload"].get("type")) for r in written]
    prompts = kinds.count(("event_msg", "user_message"))
    contexts = [r["payload"] for r in written if r["type"] == "turn_context"]
    assert prompts and len(contexts) == prompts
    assert kinds.count(("event_msg", "task_started")) == prompts
    assert kinds.count(("event_msg", "task_complete")) == prompts
    last_own = [r["payload"] for r in original if r["type"] == "turn_context"][-1]
    told = {k: v for k, v in last_own.items() if k not in ("turn_id", "current_date")}
    assert {"approval_policy", "sandbox_policy", "model", "cwd"} <= told.keys()
    assert {k: contexts[-1].get(k) for k in told} == told  # what the model was already told
    # every turn's records are between its task_started and task_complete, ids matching
    open_turn = None
    for r in written:
        p = r["payload"]
        if r["type"] == "event_msg" and p["type"] == "task_started":
            assert open_turn is None
            open_turn = p["turn_id"]
        elif r["type"] == "turn_context":
            assert p["turn_id"] == open_turn
        elif r["type"] == "event_msg" and p["type"] == "task_complete":
            assert p["turn_id"] == open_turn
            open_turn = None
    assert open_turn is None
    meta = written[0]["payload"]
    own = original[0]["payload"]["base_instructions"]["text"]
    assert meta["base_instructions"]["text"] == own and own.startswith("You are a coding agent")


def test_H1_a_handoff_read_back_keeps_the_answers_model(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        cid = import_paths(store, [CODEX]).conversations[0].conversation_id
        before = {m.model for m in store.path(cid) if m.role == "assistant"}
        done = handoff(store, cid, "codex", env=Environment(tmp_path / "home"))
    back = next(iter(codex.read(done.path)))
    written = {r["payload"]["model"] for r in _records(CODEX) if r["type"] == "turn_context"}
    assert {m.model for m in back.messages if m.role == "assistant"} == before == written
    assert len(written) == 1


def test_H1_a_claude_code_branch_runs_on_the_configured_codex_model(
    tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text('model = "gpt-5.5"\n')
    with new_store(tmp_path) as store:
        cid = import_paths(store, [CLAUDE]).conversations[0].conversation_id
        done = handoff(store, cid, "codex", env=Environment(home))
    contexts = [r["payload"] for r in _records(done.path) if r["type"] == "turn_context"]
    assert contexts and {c["model"] for c in contexts} == {"gpt-5.5"}
    assert all(c["cwd"] == done.cwd and c["approval_policy"] for c in contexts)


def test_H1_a_codex_session_newer_than_the_default_keeps_its_version(
    tmp_path: Path
) -> None:
    lines = (CODEX).read_text().splitlines()
    first = json.loads(lines[0])
    first["payload"]["cli_version"] = "0.301.2"
    newer = tmp_path / "rollout-2030-01-01T00-00-00-newer.jsonl"
    newer.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with new_store(tmp_path) as store:
        cid = import_paths(store, [newer]).conversations[0].conversation_id
        done = handoff(store, cid, "codex", env=Environment(tmp_path / "home"))
    assert json.loads(done.path.read_text().splitlines()[0])["payload"]["cli_version"] == (
        "0.301.2")
