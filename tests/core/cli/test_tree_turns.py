"""V1 on the recorded Claude Code session with two subagents: ``convo tree --turns`` and root
siblings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.app.graph.turn_text import turn_view
from explorer.cli.main import main
from explorer.store import Store
from explorer.store.reads_path import sibling_lists
from tests.corpus import claude_code_sessions as cc


def run(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str]:
    code = main(["--db", str(db), *args])
    out, _ = capsys.readouterr()
    return code, out


@pytest.fixture
def session_db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    db = tmp_path / "s.db"
    assert run(capsys, db, "import", str(cc.original()))[0] == 0
    return db


def test_V1_tree_turns_json_holds_every_message_once_with_subagents_on_their_call(
    session_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(capsys, session_db, "tree", "1", "--turns", "--json")
    assert code == 0
    doc = json.loads(out)
    nodes = doc["nodes"]
    held = [m for n in nodes for m in n["messages"]]
    with Store(session_db) as s:
        all_ids = [n.id for n in s.skeleton(1)]
        calls = {m.id: m for m in s.path(1)}
    assert sorted(held) == sorted(all_ids)  # every message in exactly one node
    by_id = {n["id"]: n for n in nodes}
    roots = [n for n in nodes if n["parent"] is None]
    assert [n["link"] for n in roots] == ["root"]  # subagents are not extra roots
    subs = [n for n in nodes if "subagent" in n]
    assert len(subs) == len(cc.subagents()) == 2
    for n in subs:
        sub = n["subagent"]
        assert n["link"] == "subagent" and sub["name"] and sub["agent_id"]
        call = calls[sub["call"]]  # the spawning call is on the main path...
        assert sub["tool_use_id"] in {p.tool_use_id for p in call.tool_uses()
                                      if p.tool_name == "Agent"}
        assert sub["call"] in by_id[n["parent"]]["messages"]  # ...held by the parent node
    names = {n["subagent"]["name"] for n in subs}
    assert names == {"Count the notes", "Read the todo list"}  # the Agent calls' descriptions
    assert sum(n["tip"] for n in nodes) == 1
    tip_node = next(n for n in nodes if n["tip"])
    assert tip_node["prompt"] == cc.MANIFEST["prompts"][-1]
    [compact] = [n for n in nodes if n.get("prompt") == "/compact"]  # tags as the command
    assert compact["parent"] is not None and not compact.get("subagent")


def test_V1_tree_turns_text_shows_subagents_beside_their_call(
    session_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(capsys, session_db, "tree", "1", "--turns")
    assert code == 0
    lines = out.splitlines()
    assert sum("⤷ subagent" in line for line in lines) == 2
    assert sum("◆" in line for line in lines) == 1
    assert "⚙" in out
    assert len(lines) < 10  # 59 messages read as a handful of turns


def test_V1_subagent_roots_are_never_siblings_of_the_conversations_root(
    session_db: Path,
) -> None:
    with Store(session_db) as s:
        roots = [n.id for n in s.skeleton(1) if n.parent_id is None]
        main_root = min(roots)
        assert s.siblings(main_root) == [main_root]  # not ◀ 1/3 ▶
        for other in roots[1:]:
            assert s.siblings(other) == [other]
        view = turn_view(s, 1)
    proj = view.projection
    assert len(proj.roots) == 1 and not proj.side_roots


def test_V1_tree_turns_on_the_demo_folds_runs_but_keeps_marks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "d.db"
    assert run(capsys, db, "demo")[0] == 0
    _, out = run(capsys, db, "tree", "1", "--turns", "--json")
    nodes = json.loads(out)["nodes"]
    with Store(db) as s:
        assert sorted(m for n in nodes for m in n["messages"]) == sorted(
            n.id for n in s.skeleton(1))
        labelled = set(s.checkpoints(1).values())
    for n in nodes:
        if n["kind"] == "run":
            assert not labelled.intersection(n["messages"]) and not n["tip"]
    assert any(n["labels"] for n in nodes)


def test_V1_the_transcripts_sibling_lists_leave_subagents_out(session_db: Path) -> None:
    with Store(session_db) as s:
        roots = [n.id for n in s.skeleton(1) if n.parent_id is None]
        kids = [n.id for n in s.skeleton(1) if n.parent_id == roots[0]]
        lists = sibling_lists(s.reader, [*roots, *kids])
    assert len(roots) == 3 and all(lists[r] == [r] for r in roots)  # 1/1, not 1/3
    assert all(lists[k] == kids for k in kids)
