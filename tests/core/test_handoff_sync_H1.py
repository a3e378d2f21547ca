"""A branch handed to an agent and continued there syncs back under the branch it came from:
the records the hand-back wrote are its messages (no duplicate rows), what the agent added
hangs below the branch's end, and a sync of an unchanged file adds nothing (H1, S1)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from agent_home import claude_session
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.run import import_paths
from explorer.app.importing.sync import sync_sources
from explorer.app.sharing.handoff import handoff
from explorer.store import Store

STAMP = "2030-01-01T10:00:00.000Z"


def _claude(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last = next(r for r in reversed(records) if "uuid" in r)
    ask, answer = str(uuid.uuid4()), str(uuid.uuid4())
    common = {"sessionId": last["sessionId"], "cwd": last.get("cwd", "/"), "timestamp": STAMP,
              "isSidechain": False, "userType": "external", "version": "2.1.0"}
    return [
        {**common, "type": "user", "uuid": ask, "parentUuid": last["uuid"],
         "message": {"role": "user", "content": "go on with the list"}},
        {**common, "type": "assistant", "uuid": answer, "parentUuid": ask,
         "message": {"id": "msg_cont", "type": "message", "role": "assistant",
                     "model": "claude-sonnet-4-5", "content": [
                         {"type": "text", "text": "Continued in the agent."}]}},
    ]


def _codex(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def item(role: str, kind: str, text: str) -> dict[str, Any]:
        return {"timestamp": STAMP, "type": "response_item", "payload": {
            "type": "message", "role": role, "content": [{"type": kind, "text": text}]}}
    return [item("user", "input_text", "go on with the list"),
            item("assistant", "output_text", "Continued in the agent.")]


def _pi(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last = next(r for r in reversed(records) if "id" in r and r.get("type") != "session")
    return [
        {"type": "message", "id": "cont0001", "parentId": last["id"], "timestamp": STAMP,
         "message": {"role": "user", "content": [{"type": "text", "text": "go on with the list"}],
                     "timestamp": 1893492000000}},
        {"type": "message", "id": "cont0002", "parentId": "cont0001", "timestamp": STAMP,
         "message": {"role": "assistant", "content": [
             {"type": "text", "text": "Continued in the agent."}], "model": "m", "provider": "p",
             "api": "x", "usage": {}, "stopReason": "stop", "timestamp": 1893492000001}},
    ]


CONTINUE = {"claude-code": _claude, "codex": _codex, "pi": _pi}


def _rows(store: Store) -> int:
    return int(store.reader.execute("SELECT count(*) FROM messages").fetchone()[0])


@pytest.mark.parametrize("agent", ["claude-code", "codex", "pi"])
def test_H1_a_continued_handoff_syncs_back_under_its_branch(
    agent: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env = Environment(home)
    with new_store(tmp_path) as store:
        cid = import_paths(store, [claude_session()]).conversations[0].conversation_id
        tip = store.conversation(cid).tip_id
        done = handoff(store, cid, agent, env=env)
        assert done.differences == []
        records = [json.loads(line) for line in done.path.read_text().splitlines()]
        with done.path.open("a") as f:
            f.writelines(json.dumps(r) + "\n" for r in CONTINUE[agent](records))
        before = _rows(store)
        report = sync_sources(store, env)
        assert report.errors == []
        assert [c.id for c in store.conversations()] == [cid]  # no copy of the branch
        assert _rows(store) == before + 2  # only what the agent added
        added = store.reader.execute(
            "SELECT id, parent_id, role FROM messages WHERE conversation_id = ? "
            "ORDER BY id DESC LIMIT 2", (cid,)).fetchall()
        (_, asked, _), (ask, parent, role) = added
        assert role == "user" and asked == ask and parent == tip  # under the branch's end
        assert sync_sources(store, env).added_messages == 0  # S1: nothing the second time
        assert _rows(store) == before + 2


def test_H1_a_hand_back_resumed_into_a_new_session_file_still_links(
    tmp_path: Path
) -> None:
    """Claude Code may resume (or fork) a session into a new file under a new session id,
    copying its records: their keys still name the branch they came from."""
    home = tmp_path / "home"
    env = Environment(home)
    with new_store(tmp_path) as store:
        cid = import_paths(store, [claude_session()]).conversations[0].conversation_id
        tip = store.conversation(cid).tip_id
        done = handoff(store, cid, "claude-code", env=env)
        records = [json.loads(line) for line in done.path.read_text().splitlines()]
        fresh = str(uuid.uuid4())
        copied = [{**r, "sessionId": fresh} if "sessionId" in r else r for r in records]
        copied += _claude(copied)
        done.path.unlink()
        (done.path.parent / f"{fresh}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in copied))
        before = _rows(store)
        assert sync_sources(store, env).errors == []
        assert [c.id for c in store.conversations()] == [cid]
        assert _rows(store) == before + 2
        parent = store.reader.execute(
            "SELECT parent_id FROM messages WHERE conversation_id = ? ORDER BY id DESC "
            "LIMIT 1 OFFSET 1", (cid,)).fetchone()[0]
        assert parent == tip


@pytest.mark.parametrize("reader", ["convo import", "the window's import"])
def test_H1_an_import_of_a_continued_handoff_links_it_too(
    tmp_path: Path, reader: str
) -> None:
    """``convo import`` reads in this process; the window reads in a child process and
    writes itself: both relink, so the agent's continuation lands under the branch, once."""
    from explorer.app.importing.process import import_in_child

    imports = import_paths if reader == "convo import" else import_in_child
    with new_store(tmp_path) as store:
        cid = import_paths(store, [claude_session()]).conversations[0].conversation_id
        tip = store.conversation(cid).tip_id
        done = handoff(store, cid, "codex", env=Environment(tmp_path / "home"))
        with done.path.open("a") as f:
            f.writelines(json.dumps(r) + "\n" for r in _codex([]))
        before = _rows(store)
        report = imports(store, [done.path])
        assert [c.conversation_id for c in report.conversations] == [cid]
        assert _rows(store) == before + 2
        parent = store.reader.execute(
            "SELECT parent_id FROM messages WHERE conversation_id = ? ORDER BY id DESC "
            "LIMIT 1 OFFSET 1", (cid,)).fetchone()[0]
        assert parent == tip


def test_H1_a_read_only_database_still_hands_off_and_says_it_will_not_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from explorer.app.importing.demo import load_demo
    from explorer.store import read_only

    folder = tmp_path / "archive"
    folder.mkdir()
    db = folder / "explorer.db"
    with Store(db) as store:
        cid = load_demo(store)
    real = read_only.writable
    monkeypatch.setattr(read_only, "writable", lambda p: p != folder and real(p))
    with Store(db) as store:
        assert store.read_only
        done = handoff(store, cid, "codex", env=Environment(tmp_path / "home"))
    assert done.path.is_file()
    assert any("not recorded in the database" in n for n in done.notes)
