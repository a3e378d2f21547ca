"""The Claude Code 2.1.332 session the real client recorded (``tests/corpus/claude_code``).

``claude -p`` answered, ran Bash, Read, Write and Edit, was resumed twice by id and then
forked with ``--resume <id> --fork-session``. The fork is a second session file that
repeats the original's lines, same uuids, under its own ``sessionId``, then adds its turn.
Today each file is a conversation of its own: the fork's copy of the shared turns is
stored again, not linked to the original.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from explorer.formats import claude_code
from explorer.formats.base import ImportedConversation
from tests.corpus import CORPUS, manifests

HOME = CORPUS / "claude_code" / "home"
MANIFEST: dict[str, Any] = manifests()["claude_code"]


def _files() -> dict[str, Path]:
    """The two session files by their session id (the file name)."""
    return {p.stem: p for p in (HOME / ".claude" / "projects").glob("*/*.jsonl")}


def _read(path: Path) -> ImportedConversation:
    [conv] = list(claude_code.read(path))
    return conv.materialize()


def _original_and_fork() -> tuple[ImportedConversation, ImportedConversation]:
    convs = sorted((_read(p) for p in _files().values()), key=lambda c: len(c.messages))
    assert len(convs) == 2
    return convs[0], convs[1]


def test_every_tool_the_session_ran_is_paired_with_what_it_returned() -> None:
    original, _ = _original_and_fork()
    results = {p.tool_use_id: p for m in original.messages for p in m.tool_results()}
    ran = {p.tool_name: results[p.tool_use_id].text
           for m in original.messages for p in m.tool_uses()}
    assert set(ran) == {"Bash", "Read", "Write", "Edit"}
    assert "notes.txt" in ran["Bash"]
    assert "first line of the notes" in ran["Read"]
    assert "todo.txt" in ran["Write"] and "todo.txt" in ran["Edit"]
    assert all(m.model == "claude-sonnet-4-5" for m in original.messages
               if m.role == "assistant")


def test_the_fork_is_a_file_of_its_own_that_repeats_the_originals_uuids() -> None:
    files = _files()
    first_lines = {sid: [json.loads(line) for line in path.read_text().splitlines()]
                   for sid, path in files.items()}
    uuids = {sid: [r["uuid"] for r in lines if r.get("type") in ("user", "assistant")]
             for sid, lines in first_lines.items()}
    original, fork = sorted(uuids, key=lambda s: len(uuids[s]))
    assert uuids[fork][:len(uuids[original])] == uuids[original]
    assert {r.get("sessionId") for r in first_lines[fork] if "sessionId" in r} == {fork}


def test_today_the_fork_imports_as_a_second_conversation_holding_the_shared_turns() -> None:
    original, fork = _original_and_fork()
    assert original.source_id != fork.source_id
    shared = [m.source_id for m in original.messages]
    assert [m.source_id for m in fork.messages][:len(shared)] == shared
    own = [m.text for m in fork.messages[len(shared):] if m.role == "user" and m.text]
    assert own == [MANIFEST["prompts"][-1]]
    said = [m.text for m in original.messages if m.role == "user" and m.text]
    assert said == MANIFEST["prompts"][:-1]


def test_the_newer_bookkeeping_lines_are_counted_by_kind_never_repaired() -> None:
    """2.1.332 writes attachments, request snapshots, queue and mode lines between the
    messages: each kind is counted once, no line is called damaged."""
    for path in _files().values():
        conv = _read(path)
        assert conv.notes == []
        assert {"attachment", "api-request", "last-prompt"} <= set(conv.ignored_records)
        assert not any(k.startswith(("user (", "assistant (")) for k in conv.ignored_records)
