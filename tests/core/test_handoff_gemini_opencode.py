"""Handing a branch to Gemini CLI and OpenCode (H1): the file lands where each looks (Gemini
CLI's project slug, OpenCode's import folder), reads back as the branch, is private, never
lands twice, and names the model the person's OpenCode runs with."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.run import import_paths
from explorer.app.sharing import gemini_place
from explorer.app.sharing.handoff import handoff, planned
from explorer.formats import gemini_cli, opencode
from explorer.formats.registry import detect
from explorer.store import Store, StoreError
from tests.corpus import claude_code_sessions

CWD = "/tmp/convo-corpus/claude_code/work"


def recorded(store: Store) -> int:
    """The recorded Claude Code fork: Bash, Read, Write and Edit calls with their results
    (the original's picture in a tool result is not carried to these agents)."""
    report = import_paths(store, [claude_code_sessions.fork()])
    assert report.errors == []
    return report.conversations[0].conversation_id


@pytest.mark.parametrize(("agent", "module"), [("gemini-cli", gemini_cli),
                                               ("opencode", opencode)])
def test_H1_a_branch_lands_where_the_agent_looks_and_reads_back_the_same(
        agent: str, module: object, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with new_store(tmp_path) as store:
        cid = recorded(store)
        calls = sum(len(m.tool_uses()) for m in store.path(cid))
        done = handoff(store, cid, agent, env=Environment(home))
    assert calls >= 4 and done.differences == []
    assert detect(done.path) is module
    assert done.cwd == CWD and done.command.startswith(f"cd {CWD} && ")
    back = next(iter(module.read(done.path))).materialize()  # type: ignore[attr-defined]
    assert sum(len(m.tool_uses()) for m in back.messages) == calls
    if agent == "gemini-cli":
        chats = home / ".gemini" / "tmp" / "work" / "chats"
        assert done.path.parent == chats
        assert done.path.name.endswith(f"-{done.session_id[:8]}.jsonl")
        assert done.command.endswith(f"gemini --resume {done.session_id}")
        for base in ("tmp", "history"):  # Gemini CLI finds the slug by these and registers it
            assert (home / ".gemini" / base / "work" / ".project_root").read_text() == CWD
    else:
        assert done.path == home / ".local/share/opencode/handoff" / f"{done.session_id}.json"
        assert done.session_id.startswith("ses_")
        assert done.command.endswith(f"opencode import {done.path} && "
                                     f"opencode --session {done.session_id}")


@pytest.mark.parametrize("agent", ["gemini-cli", "opencode"])
def test_H1_the_file_is_private_and_never_lands_twice(agent: str, tmp_path: Path) -> None:
    env = Environment(tmp_path / "home")
    with new_store(tmp_path) as store:
        cid = recorded(store)
        first = handoff(store, cid, agent, env=env)
        assert stat.S_IMODE(first.path.stat().st_mode) == 0o600
        assert stat.S_IMODE(first.path.parent.stat().st_mode) == 0o700
        before = first.path.read_bytes()
        with pytest.raises(StoreError, match="nothing was written"):
            handoff(store, cid, agent, env=env)
    assert first.path.read_bytes() == before
    assert len(list(first.path.parent.iterdir())) == 1


def test_H1_gemini_uses_the_slug_its_registry_names_else_claims_a_free_one(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = Environment(home)
    gemini = home / ".gemini"
    (gemini / "tmp" / "work").mkdir(parents=True)
    (gemini / "tmp" / "work" / ".project_root").write_text("/somewhere/else/work")
    assert gemini_place.slug_for(env, CWD) == "work-1"  # "work" belongs to another folder
    (gemini / "projects.json").write_text(json.dumps({"projects": {CWD: "my-work"}}))
    assert gemini_place.slug_for(env, CWD) == "my-work"
    with new_store(tmp_path) as store:
        plan = planned(store, recorded(store), "gemini-cli", env=env)
    assert plan.path.parent == gemini / "tmp" / "my-work" / "chats"
    assert not plan.path.parent.exists()  # a plan writes nothing


def test_H1_opencode_names_the_model_the_persons_opencode_runs_with(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "opencode"
    config.mkdir(parents=True)
    (config / "opencode.jsonc").write_text('{\n  // mine\n  "model": "local/fast-one",\n}\n')
    with new_store(tmp_path) as store:
        done = handoff(store, recorded(store), "opencode", env=Environment(home))
    export = json.loads(done.path.read_text())
    users = [m["info"] for m in export["messages"] if m["info"]["role"] == "user"]
    assert users and all(u["model"] == {"providerID": "local", "modelID": "fast-one"}
                         for u in users)
    ids = [m["info"]["id"] for m in export["messages"]]
    assert ids == sorted(ids)  # OpenCode orders a session's messages by id
    parts = [p["id"] for m in export["messages"] for p in m["parts"]]
    assert parts == sorted(parts) and len(set(parts)) == len(parts)
    tools = [p for m in export["messages"] for p in m["parts"] if p["type"] == "tool"]
    assert tools and all(t["state"]["status"] in ("completed", "error") for t in tools)
