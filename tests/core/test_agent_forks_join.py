"""A session an agent forked (Claude Code's ``--fork-session``, pi's ``--fork``) copies the
records it forks, ids and all, under a new session: it syncs back into the conversation it
copies, what the fork adds a branch there, with no duplicate rows (H1, S1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sync import sync_sources
from explorer.store.reads_all import conversation_messages
from tests.corpus import CORPUS, manifests

FORKED = {"claude_code": "A different road from here", "pi": "A copy of its own"}


@pytest.mark.parametrize("agent", sorted(FORKED))
def test_H1_a_forked_session_is_a_branch_of_the_conversation_it_copies(
        agent: str, tmp_path: Path) -> None:
    entry = manifests()[agent]
    files = len([f for f in entry["files"]  # session files; subagents' are beside them
                 if f.endswith(".jsonl") and "/subagents/" not in f])
    with new_store(tmp_path) as store:
        report = sync_sources(store, Environment(CORPUS / agent / "home", {}), {entry["tool"]})
        assert report.errors == [] and files == 2
        [conv] = store.conversations()  # two session files, one conversation
        messages = conversation_messages(store.reader, conv.id)
        keys = [m.source_id for m in messages]
        assert len(keys) == len(set(keys))  # the copied records are stored once
        [asked] = [m for m in messages if m.role == "user" and FORKED[agent] in m.text]
        path = store.path(conv.id, asked.id)
        first = next(m for m in messages if m.role == "user" and m.text)
        assert path[0].id == messages[0].id and first in path  # under the shared start
        assert any(agent_said_this_is_a_fork(n) for n in report.notes)
        again = sync_sources(store, Environment(CORPUS / agent / "home", {}), {entry["tool"]})
        assert again.added_messages == 0 and len(store.conversations()) == 1


def agent_said_this_is_a_fork(note: str) -> bool:
    return "a copy of this conversation's session (the agent forked it" in note


def test_H1_two_sessions_that_merely_share_a_first_message_id_stay_apart(
        tmp_path: Path) -> None:
    """A different conversation that happens to reuse the root's id is not a fork."""
    import json
    entry = manifests()["claude_code"]
    src = max((CORPUS / "claude_code" / f for f in entry["files"]), key=lambda p: p.stat().st_size)
    other = tmp_path / "home" / ".claude" / "projects" / "-elsewhere" / "other.jsonl"
    other.parent.mkdir(parents=True)
    lines = []
    for line in src.read_text().splitlines():
        record = json.loads(line)
        record["sessionId"] = "other"
        message = record.get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            message["content"] = "something else entirely " + message["content"]
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "text":
                    block["text"] = "unrelated words " + block["text"]
        lines.append(json.dumps(record))
    other.write_text("\n".join(lines) + "\n")
    with new_store(tmp_path) as store:
        sync_sources(store, Environment(CORPUS / "claude_code" / "home", {}), {"claude-code"})
        report = sync_sources(store, Environment(tmp_path / "home", {}), {"claude-code"})
        assert not any(agent_said_this_is_a_fork(n) for n in report.notes)
        assert len(store.conversations()) == 2
