"""The Claude Code 2.1.332 session the real client recorded (``tests/corpus/claude_code``).

``claude -p`` answered, ran Bash, Read, Write and Edit, was resumed by id and then forked
with ``--resume <id> --fork-session``. The fork is a second session file that repeats the
original's lines, same uuids, under its own ``sessionId``, then adds its turn. The original
went on (commands, thinking, parallel and failing calls, subagents, a compaction). Read
alone, each file is a conversation of its own; a sync joins them (test_agent_forks_join).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from explorer.formats import claude_code
from explorer.formats.base import ImportedConversation
from tests.corpus import claude_code_sessions as cc

MANIFEST: dict[str, Any] = cc.MANIFEST


def _files() -> dict[str, Path]:
    """The two session files by their session id (the file name)."""
    return {p.stem: p for p in cc.sessions()}


def _read(path: Path) -> ImportedConversation:
    [conv] = list(claude_code.read(path))
    return conv.materialize()


def _original_and_fork() -> tuple[ImportedConversation, ImportedConversation]:
    assert len(_files()) == 2
    return _read(cc.original()), _read(cc.fork())


def test_every_tool_the_session_ran_is_paired_with_what_it_returned() -> None:
    original, _ = _original_and_fork()
    results = {p.tool_use_id: p for m in original.messages for p in m.tool_results()}
    ran = {p.tool_name: results[p.tool_use_id].text
           for m in original.messages for p in m.tool_uses()}
    assert set(ran) == {"Agent", "Bash", "Read", "Write", "Edit"}
    outputs = {p.tool_use_id: results[p.tool_use_id] for m in original.messages
               for p in m.tool_uses()}
    said = [(p.tool_name, outputs[p.tool_use_id].text, outputs[p.tool_use_id].is_error)
            for m in original.messages for p in m.tool_uses()]
    assert ("Bash", "dot.png\nnotes.txt", False) in said  # ls -1, before todo.txt existed
    assert any(n == "Read" and "first line of the notes" in t for n, t, _ in said)
    assert any(n == "Write" and "todo.txt" in t for n, t, _ in said)
    assert any(n == "Edit" and "todo.txt" in t for n, t, _ in said)
    assert any(n == "Bash" and t.startswith("1\n2\n3") and t.endswith("400")
               for n, t, _ in said)
    failed = [(n, t) for n, t, e in said if e]
    assert failed == [("Bash", "Exit code 1"), ("Read", failed[1][1])]
    assert failed[1][1].startswith("File does not exist.")
    assert all(m.model == "claude-sonnet-4-5" for m in original.messages
               if m.role == "assistant")


def test_the_fork_is_a_file_of_its_own_that_repeats_the_originals_uuids() -> None:
    files = _files()
    first_lines = {sid: [json.loads(line) for line in path.read_text().splitlines()]
                   for sid, path in files.items()}
    uuids = {sid: [r["uuid"] for r in lines if r.get("type") in ("user", "assistant")]
             for sid, lines in first_lines.items()}
    original, fork = cc.original().stem, cc.fork().stem
    shared = uuids[fork].index(next(
        r["uuid"] for r in first_lines[fork] if r.get("type") == "user"
        and r["message"]["content"] == cc.FORK_PROMPT))
    assert uuids[fork][:shared] == uuids[original][:shared]  # the copy of the start
    assert not set(uuids[fork][shared:]) & set(uuids[original])  # then its own turn
    assert {r.get("sessionId") for r in first_lines[fork] if "sessionId" in r} == {fork}


def test_today_the_fork_imports_as_a_second_conversation_holding_the_shared_turns() -> None:
    original, fork = _original_and_fork()
    assert original.source_id != fork.source_id
    keys = [m.source_id for m in fork.messages]
    shared = len(set(keys) & {m.source_id for m in original.messages})
    assert keys[:shared] == [m.source_id for m in original.messages][:shared]
    own = [m.text for m in fork.messages[shared:] if m.role == "user" and m.text]
    assert own == [cc.FORK_PROMPT]
    said = [m.text for m in original.messages if m.is_prompt and "<" not in m.text[:1]
            and not m.source_meta.get("isCompactSummary") and "subagent" not in m.source_meta]
    assert said == [p for p in MANIFEST["prompts"] if p != cc.FORK_PROMPT]
    handed = sorted(m.text for m in original.messages if m.is_prompt
                    and "subagent" in m.source_meta)  # the prompts of the two Agent calls
    asked = sorted(str(json.loads(p.text)["prompt"]) for m in original.messages
                   for p in m.tool_uses() if p.tool_name == "Agent")
    assert handed == asked and len(asked) == 2


def test_the_newer_bookkeeping_lines_are_counted_by_kind_never_repaired() -> None:
    """2.1.332 writes attachments, request snapshots, queue and mode lines between the
    messages: each kind is counted once, no line is called damaged. The original's notes
    say only how its compaction and its parallel results were linked."""
    entries = cc.records(cc.original())
    (boundary,) = [e for e in entries if e.get("subtype") == "compact_boundary"]
    assert boundary["parentUuid"] is None
    assert _read(cc.original()).notes == [
        f"compact boundary {boundary['uuid']}: linked to its logical parent "
        f"{boundary['logicalParentUuid']} to keep the tree connected",
        "3 parallel tool result(s) chained one after another (written parent kept as "
        "reparented_from)"]
    assert _read(cc.fork()).notes == []
    for path in _files().values():
        conv = _read(path)
        assert {"attachment", "api-request", "last-prompt"} <= set(conv.ignored_records)
        assert not any(k.startswith(("user (", "assistant (")) for k in conv.ignored_records)
