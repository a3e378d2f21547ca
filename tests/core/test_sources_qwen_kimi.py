"""`convo sources --json` names Qwen Code and Kimi CLI where each keeps its sessions (honouring
their own overrides), and a sync follows a session the agent is still writing, once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import new_store

from explorer.app.importing import agent_homes as homes
from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sources import find_sources
from explorer.app.importing.sync import sync_sources
from explorer.cli.main import main
from tests.corpus import CORPUS


def test_sources_json_lists_qwen_code_and_kimi_cli(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("QWEN_RUNTIME_DIR", "QWEN_HOME", "KIMI_SHARE_DIR"):
        monkeypatch.delenv(name, raising=False)
    shutil.copytree(CORPUS / "kimi_cli" / "home" / ".kimi", tmp_path / ".kimi")
    assert main(["sources", "--json"]) == 0
    rows = {r["tool"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["qwen-code"]["path"] == str(tmp_path / ".qwen" / "projects")
    assert not rows["qwen-code"]["exists"]
    assert rows["kimi-cli"]["path"] == str(tmp_path / ".kimi" / "sessions")
    assert rows["kimi-cli"]["sessions"] == 2 and rows["kimi-cli"]["problems"] == []


def test_each_honours_its_own_overrides_on_every_system() -> None:
    home = Path("/h")
    for system in ("linux", "darwin", "win32"):
        assert homes.qwen_projects(Environment(home, {}, system)) == home / ".qwen" / "projects"
        assert homes.kimi_sessions(Environment(home, {}, system)) == home / ".kimi" / "sessions"
    assert homes.qwen_projects(Environment(home, {"QWEN_HOME": "/q"})) == Path("/q/projects")
    both = {"QWEN_HOME": "/q", "QWEN_RUNTIME_DIR": "/r"}
    assert homes.qwen_projects(Environment(home, both)) == Path("/r/projects")
    assert homes.kimi_sessions(Environment(home, {"KIMI_SHARE_DIR": "/k"})) == \
        Path("/k/sessions")


def test_only_session_logs_are_counted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(CORPUS / "kimi_cli" / "home", home)
    shutil.copytree(CORPUS / "qwen_code" / "home", home, dirs_exist_ok=True)
    [session] = [p for p in (home / ".kimi" / "sessions").glob("*/*") if p.is_dir()][:1]
    sub = session / "subagents" / "a1"
    sub.mkdir(parents=True)
    shutil.copy(session / "wire.jsonl", sub / "wire.jsonl")  # a subagent's own log
    (session / "context.jsonl").write_text('{"role": "user", "content": "hi"}\n')
    chats = next((home / ".qwen" / "projects").glob("*/chats"))
    (chats / "x.runtime.json").write_text("{}")
    found = {f.tool: f for f in find_sources(Environment(home), {"qwen-code", "kimi-cli"})}
    assert found["kimi-cli"].sessions == 2 and found["qwen-code"].sessions == 3
    assert {u.path.name for u in found["kimi-cli"].units} == {"wire.jsonl"}
    assert all(u.path.parent.parent.parent == home / ".kimi" / "sessions"
               for u in found["kimi-cli"].units)


@pytest.mark.parametrize(("agent", "tool", "pattern"), [
    ("qwen_code", "qwen-code", "chats/*.jsonl"), ("kimi_cli", "kimi-cli", "wire.jsonl")])
def test_S1_a_session_being_written_is_followed_once(tmp_path: Path, agent: str, tool: str,
                                                    pattern: str) -> None:
    home = tmp_path / "home"
    shutil.copytree(CORPUS / agent / "home", home)
    path = max(home.rglob(pattern), key=lambda p: p.stat().st_size)
    whole = path.read_bytes()
    raw = whole.splitlines(keepends=True)
    half = len(raw) // 2
    path.write_bytes(b"".join(raw[:half]) + raw[half][:25])
    env = Environment(home, {})
    with new_store(tmp_path) as store:
        first = sync_sources(store, env, {tool})
        assert first.errors == [] and first.added_messages > 0
        path.write_bytes(whole)
        second = sync_sources(store, env, {tool})
        assert second.errors == [] and second.appended == 1 and second.added_messages > 0
        again = sync_sources(store, env, {tool})
        assert again.added_messages == 0 and again.errors == []
    with new_store(tmp_path, "whole.db") as fresh:
        once = sync_sources(fresh, env, {tool})
    assert first.added_messages + second.added_messages == once.added_messages
