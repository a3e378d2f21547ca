"""Handing a branch back to Claude Code, pi or Codex: where the file goes, never over another,
read back the same; forks and exports keep the session's folder, branch and agent version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_home import claude_session, codex_rollout
from codex_items import PATCH, with_items
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.run import import_paths
from explorer.app.sharing.exporting import export_lines
from explorer.app.sharing.handoff import handoff
from explorer.formats import claude_code, codex, pi
from explorer.formats.registry import detect
from explorer.store import Store, StoreError


def imported(store: Store, path: Path) -> int:
    report = import_paths(store, [path])
    assert report.errors == []
    return report.conversations[0].conversation_id


def session_cwd(rollout: Path) -> str:
    """The folder Codex ran in, as its rollout's first record says."""
    cwd: str = json.loads(rollout.read_text().splitlines()[0])["payload"]["cwd"]
    return cwd


@pytest.mark.parametrize(("agent", "module"), [("claude-code", claude_code), ("pi", pi),
                                               ("codex", codex)])
def test_a_branch_lands_where_the_agent_looks_and_reads_back_the_same(
    agent: str, module: object, tmp_path: Path
) -> None:
    env = Environment(tmp_path / "home")
    with new_store(tmp_path) as store:
        cid = imported(store, codex_rollout())
        done = handoff(store, cid, agent, env=env)
    assert done.differences == []
    cwd = session_cwd(codex_rollout())
    assert cwd.startswith("/") and done.cwd == cwd  # the session's own folder
    assert detect(done.path) is module
    home = tmp_path / "home"
    folder = cwd.replace("/", "-")  # how Claude Code and pi name a project's folder
    if agent == "claude-code":
        assert done.path == (home / ".claude/projects" / folder / f"{done.session_id}.jsonl")
        assert done.command.endswith(f"claude --resume {done.session_id}")
    elif agent == "pi":
        assert done.path.parent == home / ".pi/agent/sessions" / f"-{folder}--"
        assert done.path.name.endswith(f"_{done.session_id}.jsonl")
    else:
        assert done.path.parent.parent.parent.parent == home / ".codex" / "sessions"
        assert done.path.name.startswith("rollout-") and done.session_id in done.path.name
        assert done.command.endswith(f"codex resume {done.session_id}")
    assert done.command.startswith(f"cd {cwd} && ")


@pytest.mark.parametrize("agent", ["claude-code", "pi", "codex"])
def test_an_existing_session_is_never_overwritten(agent: str, tmp_path: Path) -> None:
    env = Environment(tmp_path / "home")
    with new_store(tmp_path) as store:
        cid = imported(store, claude_session())
        first = handoff(store, cid, agent, env=env)
        with first.path.open("a") as f:
            f.write('{"the agent": "kept working"}\n')
        before = first.path.read_bytes()
        with pytest.raises(StoreError, match="nothing was written"):
            handoff(store, cid, agent, env=env)
        assert first.path.read_bytes() == before
        assert len(list((tmp_path / "home").rglob(f"*{first.session_id}*"))) == 1


def test_a_branch_ending_earlier_is_its_own_session(tmp_path: Path) -> None:
    env = Environment(tmp_path / "home")
    with new_store(tmp_path) as store:
        cid = imported(store, claude_session())
        path = store.path(cid)
        boundary = next(m.id for m in reversed(path[: len(path) // 2]) if m.role == "assistant"
                        and not m.tool_uses())
        whole = handoff(store, cid, "claude-code", env=env)
        part = handoff(store, cid, "claude-code", at=boundary, env=env)
    assert part.session_id != whole.session_id and part.differences == []
    assert part.lines < whole.lines


def test_an_unknown_agent_is_refused(tmp_path: Path) -> None:
    with new_store(tmp_path) as store, pytest.raises(StoreError, match="unknown agent"):
        handoff(store, 1, "cursor", env=Environment(tmp_path))


def test_a_fork_keeps_cwd_branch_and_version_in_its_exports(tmp_path: Path) -> None:
    written = [json.loads(line) for line in claude_session().read_text().splitlines()]
    said = next(r for r in written if r.get("type") == "user")
    with new_store(tmp_path) as store:
        cid = imported(store, claude_session())
        conv = store.conversation(cid)
        assert (conv.meta["cwd"], conv.meta["git_branch"], conv.meta["version"]) == (
            said["cwd"], said["gitBranch"], said["version"])
        fork = store.fork(cid, store.path(cid)[-3].id)
        meta = store.conversation(fork).meta
        assert {k: meta[k] for k in ("cwd", "git_branch", "version")} == {
            k: conv.meta[k] for k in ("cwd", "git_branch", "version")}
        claude = [json.loads(x) for x in export_lines(store, fork, "claude-code")]
        line = next(r for r in claude if "cwd" in r)
        assert line["cwd"] == conv.meta["cwd"] != "/"
        assert line["gitBranch"] == conv.meta["git_branch"]
        assert line["version"] == conv.meta["version"]
        header = json.loads(next(iter(export_lines(store, fork, "pi"))))
        assert header["cwd"] == conv.meta["cwd"]
        rollout = json.loads(next(iter(export_lines(store, fork, "codex"))))
        assert rollout["payload"]["cwd"] == conv.meta["cwd"]
        assert rollout["payload"]["git"]["branch"] == conv.meta["git_branch"]


@pytest.mark.parametrize("agent", ["claude-code", "pi", "codex"])
def test_patches_and_searches_survive_the_trip(agent: str, tmp_path: Path) -> None:
    """The recorded Codex session with apply_patch edits and a web search written in."""
    source = with_items(tmp_path / codex_rollout().name)
    records = [json.loads(line)["payload"] for line in source.read_text().splitlines()]
    patches = sum(r.get("name") == "apply_patch" for r in records)
    assert patches >= 1
    with new_store(tmp_path) as store:
        cid = imported(store, source)
        done = handoff(store, cid, agent, env=Environment(tmp_path / "home"))
    assert done.differences == []
    # the whole patch, as each agent's JSON writes it (Codex's instructions name the markers)
    assert done.path.read_text().count(json.dumps(PATCH)[1:-1]) == patches
