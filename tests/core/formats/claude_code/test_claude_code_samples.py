"""Claude Code importer against the session files Claude Code 2.1.332 wrote (the corpus
recording), and shapes built from them: a person's rewind in one file, a loop of parents,
a reply without its prompt.

Messages after grouping = user lines + distinct ``message.id`` of assistant lines + the
file-history snapshots + Claude Code's system records; every other record is counted by
type as ignored. Each expectation below is worked out from the raw lines, not from what the
importer says.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Hashable
from pathlib import Path

import pytest

from explorer.formats import claude_code
from explorer.formats.base import ImportedConversation
from explorer.formats.claude_code.tree import path_to
from explorer.tree.model import Message
from explorer.tree.turns import boundary_flags, pending_after
from tests.corpus import CORPUS
from tests.corpus import claude_code_sessions as cc
from tests.corpus.agents.claude_code import DOT

CWD = "/tmp/convo-corpus/claude_code/work"


def _one(path: Path) -> ImportedConversation:
    convs = list(claude_code.read(path))
    assert len(convs) == 1
    return convs[0].materialize()


def _branch_points(messages: list[Message]) -> dict[Hashable, list[Hashable]]:
    kids: dict[Hashable, list[Hashable]] = {}
    for m in messages:
        if m.parent_id is not None:
            kids.setdefault(m.parent_id, []).append(m.id)
    return {k: v for k, v in kids.items() if len(v) > 1}


def _main(conv: ImportedConversation) -> list[Message]:
    """Messages of the tree that holds the tip (a subagent's tree is another root)."""
    by_id = {m.id: m for m in conv.messages}

    def root(m: Message) -> Hashable:
        while m.parent_id is not None:
            m = by_id[m.parent_id]
        return m.id

    tip_root = root(by_id[conv.tip])
    return [m for m in conv.messages if root(m) == tip_root]


def _grouped(entries: list[cc.Record]) -> int:
    """Messages the lines make, counted from the raw records."""
    kinds = Counter(e.get("type") for e in entries)
    replies = {e["message"]["id"] for e in entries if e.get("type") == "assistant"}
    return (kinds["user"] + len(replies) + kinds["file-history-snapshot"]
            + kinds["system"])


def _session(tmp: Path) -> Path:
    return cc.original()


def _fork(tmp: Path) -> Path:
    return cc.fork()


# builder, messages of the tip's tree (as worked out from the lines), branch points,
# files whose bookkeeping records the read counts (the session and its subagents)
CASES: list[tuple[Callable[[Path], Path], int, int, bool]] = [
    (_session, 51, 0, True),  # 26 user lines, 15 replies, 7 snapshots, 3 system records
    (_fork, 22, 0, False),  # 9 user lines, 9 replies, 4 snapshots
    (cc.fork_in_one_file, 56, 1, False),  # the original's 51 and the fork's 2+2+1 own
    (cc.looped, 22, 0, False),
    (cc.reply_alone, 1, 0, False),
]


@pytest.mark.parametrize(("build", "count", "forks", "with_subagents"), CASES,
                         ids=["session", "fork", "fork_in_one_file", "looped", "reply_alone"])
def test_sample_imports_with_verified_counts(
    tmp_path: Path, build: Callable[[Path], Path], count: int, forks: int,
    with_subagents: bool,
) -> None:
    path = build(tmp_path)
    entries = cc.records(path)
    conv = _one(path)
    assert conv.source_format == "claude_code"
    assert _grouped(entries) == count
    assert len(_main(conv)) == count
    assert len(_branch_points(conv.messages)) == forks
    assert conv.tip == cc.last_uuid(entries)  # the last answer written
    ignored = cc.ignored(entries)
    for sub in cc.subagents() if with_subagents else []:
        ignored += cc.ignored(cc.records(sub))
    assert conv.ignored_records == ignored
    assert not conv.incomplete
    assert conv.title


def test_sniff_accepts_every_recorded_file() -> None:
    files = sorted(cc.PROJECTS.rglob("*.jsonl"))
    assert len(files) == 4  # the session, its fork and two subagents
    assert all(claude_code.sniff(f) for f in files)
    assert claude_code.sniff(cc.original().parent)


def test_sniff_rejects_other_formats(tmp_path: Path) -> None:
    text = tmp_path / "notes.jsonl"
    text.write_text("just some text\nsecond line\n")
    exports = CORPUS / "exports"
    others = [
        exports / "chatgpt" / "branching.json",
        exports / "chatgpt" / "single-conversation.json",
        *sorted((CORPUS / "pi" / "home").rglob("*.jsonl")),
        *sorted((exports / "sillytavern").glob("*.jsonl")),
        text,
    ]
    assert len(others) == 7
    for other in others:
        assert not claude_code.sniff(other), other


def test_P1_parallel_tool_calls_leave_every_result_on_the_active_path() -> None:
    entries = cc.records(cc.original())
    conv = _one(cc.original())
    path = path_to(conv.messages, conv.tip)
    assert path == _main(conv)
    uses = {p.tool_use_id for m in path for p in m.tool_uses()}
    results = {p.tool_use_id for m in path for p in m.tool_results()}
    written = {b["id"] for e in entries if e.get("type") == "assistant"
               for b in e["message"]["content"] if b.get("type") == "tool_use"}
    assert uses == written and len(uses) == 11
    assert uses <= results
    assert pending_after(path)[-1] == []
    flags = boundary_flags(path)
    prompts = [i for i, m in enumerate(path) if m.is_prompt and i > 0]
    assert all(flags[i - 1] for i in prompts)
    moved = [m for m in path if "reparented_from" in m.source_meta]
    # three parallel results make a chain (two moved), the two subagents' results one
    assert len([m for m in moved if m.is_tool_result_only]) == 3
    below_snapshots = [m for m in moved if not m.is_tool_result_only]
    snapshots = [e for e in entries if e.get("type") == "file-history-snapshot"]
    assert len(below_snapshots) == len(snapshots) == 7
    assert all(m.is_prompt for m in below_snapshots)


def test_one_api_response_becomes_one_message_with_ordered_parts() -> None:
    entries = cc.records(cc.original())
    thought = next(e for e in entries if e.get("type") == "assistant"
                   and e["message"]["content"][0]["type"] == "thinking")
    lines = [e for e in entries if e.get("type") == "assistant"
             and e["message"]["id"] == thought["message"]["id"]]
    conv = _one(cc.original())
    reply = next(m for m in conv.messages if m.id == thought["uuid"])
    assert [p.kind for p in reply.parts] == ["thinking", "text", "tool_use", "tool_use",
                                             "tool_use"]
    assert reply.source_meta["uuids"] == [e["uuid"] for e in lines] and len(lines) == 5
    assert reply.parts[0].meta["signature"] == thought["message"]["content"][0]["signature"]
    assert reply.parts[0].text == ""  # Claude Code asks for thinking omitted: signature only
    assert reply.usage is not None and reply.usage.output_tokens is not None
    assert reply.source_meta["message_id"] == thought["message"]["id"]
    assert reply.source_meta["message_id"].startswith("msg_")
    index = conv.messages.index(reply)
    results = conv.messages[index + 1:index + 4]
    assert all(m.is_tool_result_only for m in results)
    assert [m.parent_id for m in results] == [reply.id, results[0].id, results[1].id]
    image = [p for m in results for p in m.parts if p.meta.get("image")]
    assert len(image) == 1 and image[0].data == DOT  # the picture the Read call returned


def test_a_rewind_in_one_file_is_kept_as_a_branch(tmp_path: Path) -> None:
    path = cc.fork_in_one_file(tmp_path)
    original, fork = cc.records(cc.original()), cc.records(cc.fork())
    asked = next(e for e in fork if e.get("type") == "user"
                 and e["message"]["content"] == cc.FORK_PROMPT)
    shared = {e["uuid"] for e in original if "uuid" in e}
    before = [e for e in fork[:fork.index(asked)] if e.get("type") == "assistant"]
    answer = before[-1]["uuid"]  # the last answer both sessions hold
    assert answer in shared
    after = original[next(i for i, e in enumerate(original) if e.get("uuid") == answer) + 1:]
    went_on = next(e["uuid"] for e in after if e.get("parentUuid") == answer
                   and e.get("type") == "user")  # the /model command's caveat
    conv = _one(path)
    assert _branch_points(conv.messages) == {answer: [went_on, f"snapshot:{asked['uuid']}"]}
    tip_path = [m.id for m in path_to(conv.messages, conv.tip)]
    # the fork's own turn: its prompt under its snapshot, a call, the result, the answer
    assert tip_path[-5:-3] == [f"snapshot:{asked['uuid']}", asked["uuid"]]
    assert len(tip_path) == 22
    assert conv.tip == cc.last_uuid(fork)
    assert conv.meta["session_ids"] == [cc.original().stem, cc.fork().stem]
    assert conv.title == cc.MANIFEST["prompts"][0]
    first = next(e for e in original if "timestamp" in e)
    stamp = dt.datetime.fromisoformat(first["timestamp"].replace("Z", "+00:00"))
    assert conv.created_at == pytest.approx(stamp.timestamp())


def test_a_loop_of_parents_is_cut_and_every_message_kept(tmp_path: Path) -> None:
    entries = cc.records(cc.looped(tmp_path))
    conv = _one(tmp_path / f"{cc.fork().stem}.jsonl")
    first = next(e for e in entries if e.get("type") == "user")
    cut = f"snapshot:{first['uuid']}"  # the prompt's snapshot heads it: the loop is cut there
    assert [n for n in conv.notes if "cycle" in n] == [
        f"message {cut!r}: parent pointers form a cycle; cut it here"]
    by_id = {m.id: m for m in conv.messages}
    assert by_id[cut].parent_id is None and by_id[first["uuid"]].parent_id == cut
    assert len(path_to(conv.messages, conv.tip)) == len(conv.messages) == 22


def test_subagents_are_separate_roots_linked_to_their_agent_call() -> None:
    import json

    conv = _one(cc.original())
    subagents = cc.subagents()
    assert len(subagents) == 2
    sizes = {p.stem.removeprefix("agent-"): _grouped(cc.records(p)) for p in subagents}
    assert list(sizes.values()) == [4, 4]  # a prompt, a call, its result, an answer
    assert len(conv.messages) == 51 + sum(sizes.values())
    agent_calls = {
        p.tool_use_id for m in _main(conv) for p in m.tool_uses() if p.tool_name == "Agent"
    }
    assert len(agent_calls) == 2
    roots = [m for m in conv.messages if m.parent_id is None]
    assert len(roots) == 1 + len(subagents)
    described = {s["agent_id"]: s["description"] for s in conv.meta["subagents"]}
    for path in subagents:
        agent_id = path.stem.removeprefix("agent-")
        meta = json.loads(path.with_suffix(".meta.json").read_text())
        mine = [m for m in conv.messages if m.source_meta.get("subagent") == agent_id]
        assert len(mine) == sizes[agent_id]
        (root,) = [m for m in mine if m.parent_id is None]
        assert root.source_meta["spawned_by_tool_use_id"] == meta["toolUseId"]
        assert meta["toolUseId"] in agent_calls
        assert described[agent_id] == meta["description"]
    assert sorted(described.values()) == ["Count the notes", "Read the todo list"]


def test_projects_folder_yields_one_conversation_per_session() -> None:
    convs = list(claude_code.read(cc.original().parent))
    assert sorted(Path(c.source_path or "").name for c in convs) == sorted(
        p.name for p in cc.sessions())
    assert sorted(c.source_id for c in convs) == sorted(p.stem for p in cc.sessions())
    by_id = {c.source_id: c for c in convs}
    assert len(by_id[cc.original().stem].meta["subagents"]) == 2
    assert "subagents" not in by_id[cc.fork().stem].meta


def test_title_and_metadata_come_from_the_first_real_prompt() -> None:
    conv = _one(cc.original())
    assert conv.title == "Say hello and tell me what this folder is for."
    assert conv.source_id == cc.original().stem
    first = next(m for m in conv.messages if "meta_record" not in m.source_meta)
    assert first.source_meta["cwd"] == CWD and conv.meta["cwd"] == CWD
    assert conv.meta["version"] == "2.1.332"
    entries = cc.records(cc.original())
    stamp = next(e["timestamp"] for e in entries if "timestamp" in e)
    assert conv.created_at == pytest.approx(
        dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())


def test_a_compaction_starts_the_context_at_its_boundary() -> None:
    entries = cc.records(cc.original())
    (boundary,) = [e for e in entries if e.get("subtype") == "compact_boundary"]
    (summary,) = [e for e in entries if e.get("isCompactSummary")]
    conv = _one(cc.original())
    (compaction,) = conv.compactions
    assert compaction.message_key == conv.context_start == boundary["uuid"]
    assert compaction.kind == "compact_boundary"
    assert compaction.summary == summary["message"]["content"]
    assert compaction.meta["logical_parent"] == boundary["logicalParentUuid"]
    assert compaction.meta["trigger"] == "manual"
