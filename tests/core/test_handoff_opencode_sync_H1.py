"""A branch handed to OpenCode comes back linked (H1): ``opencode import`` puts the export
into OpenCode's database keeping every id, the agent continues it there, and ``convo sync``,
reading only the changed sessions of that database, hangs what was added under the
branch's end without a second copy of the branch."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.run import import_paths
from explorer.app.importing.sync import sync_sources
from explorer.app.sharing.handoff import handoff
from explorer.store.reads_all import conversation_messages
from tests.corpus import CORPUS, claude_code_sessions

ASKED = "Carry on in OpenCode: what changed?"


def opencode_import(db: Path, export: dict[str, Any], cwd: str) -> None:
    """What ``opencode import <file>`` does: the session, its messages and their parts,
    rows keyed by the export's own ids (OpenCode 1.18's import)."""
    info = export["info"]
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO session (id, project_id, slug, directory, path, title, version, "
            "time_created, time_updated) VALUES (?, 'global', ?, ?, '', ?, ?, ?, ?)",
            (info["id"], info["slug"], cwd, info["title"], info["version"],
             info["time"]["created"], info["time"]["updated"]))
        for message in export["messages"]:
            add_message(conn, message["info"], message["parts"])


def add_message(conn: sqlite3.Connection, info: dict[str, Any],
                parts: list[dict[str, Any]]) -> None:
    data = {k: v for k, v in info.items() if k not in ("id", "sessionID")}
    when = info["time"]["created"]
    conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                 (info["id"], info["sessionID"], when, when, json.dumps(data)))
    for part in parts:
        body = {k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}
        conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                     (part["id"], info["id"], info["sessionID"], when, when, json.dumps(body)))


def continue_there(db: Path, session: str, last: dict[str, Any]) -> None:
    """The agent's next turn: a prompt and an answer, with ids later than the export's."""
    when = last["time"]["created"] + 1000
    user = {"id": "msg_ffffffffffff0000000000001", "sessionID": session, "role": "user",
            "time": {"created": when}, "agent": "build",
            "model": {"providerID": "localfake", "modelID": "fake-model"}}
    answer = {**last, "id": "msg_ffffffffffff0000000000002", "parentID": user["id"],
              "time": {"created": when + 1, "completed": when + 2}, "finish": "stop"}
    with sqlite3.connect(db) as conn:
        add_message(conn, user, [{"id": "prt_ffffffffffff0000000000001", "type": "text",
                                  "text": ASKED}])
        add_message(conn, answer, [{"id": "prt_ffffffffffff0000000000002", "type": "text",
                                    "text": "Only todo.txt."}])


def test_H1_a_branch_continued_in_opencode_syncs_back_under_its_end(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(CORPUS / "opencode" / "home", home)
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    env = Environment(home, {})
    claude = claude_code_sessions.fork()  # Bash, Read, Write and Edit; no picture
    with new_store(tmp_path) as store:
        sync_sources(store, env, {"opencode"})  # OpenCode's own sessions, already known
        cid = import_paths(store, [claude]).conversations[0].conversation_id
        branch = store.path(cid)
        done = handoff(store, cid, "opencode", env=env, cwd="/tmp/work")
        assert done.differences == []
        export = json.loads(done.path.read_text())
        opencode_import(db, export, "/tmp/work")
        continue_there(db, done.session_id, export["messages"][-1]["info"])
        before = len(store.conversations())
        report = sync_sources(store, env, {"opencode"})
        assert report.errors == [] and len(store.conversations()) == before
        messages = conversation_messages(store.reader, cid)
        [asked] = [m for m in messages if m.role == "user" and m.text == ASKED]
        assert branch[-1].id in store.path_ids(asked.id)  # under the branch's end
        assert len(messages) == len(branch) + 2  # the branch once, and the new turn
