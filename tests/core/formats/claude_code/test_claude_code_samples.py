"""Claude Code importer against real session files (counts checked by reading each file).

Messages after grouping = user lines + distinct ``message.id`` of assistant lines.
Branch points count nodes with more than one child once parallel tool results
are chained; they must equal the real user forks found in the file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from pathlib import Path

import pytest

from explorer.formats import claude_code
from explorer.formats.base import ImportedConversation
from explorer.formats.claude_code.tree import path_to
from explorer.tree.model import Message
from explorer.tree.turns import boundary_flags, pending_after

WORKTREES = "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
IDEAS = "-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"


def _one(path: Path) -> ImportedConversation:
    convs = list(claude_code.read(path))
    assert len(convs) == 1
    return convs[0]


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


# file, messages (main, after grouping, with Claude Code's notices and file snapshots),
# branch points, tip uuid, ignored records
CASES = [
    (WORKTREES, 71, 0, "8ce37950-bcf0-4605-a4f3-e49a2accf726",
     {"permission-mode": 8, "attachment": 49, "last-prompt": 7}),
    (IDEAS, 36, 1, "d107d4c0-ae71-4d3d-af3a-cf7a370bd21f",
     {"progress": 11, "file-history-snapshot (no prompt)": 1}),
    ("dag_fork.jsonl", 11, 1, "k", {}),
    ("dag_cycle.jsonl", 1, 0, "d320fe20-b73c-4246-a089-a557d4a0672b", {}),
    ("short.jsonl", 8, 0, "40003bdd-2613-4975-83d5-36fb0b6bbc59", {"progress": 3}),
    ("tool_heavy.jsonl", 22, 0, "29e6224a-ea4f-445c-964f-d2bbddd138d0",
     {"progress": 10, "queue-operation": 2}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "count", "forks", "tip", "ignored"), CASES)
def test_sample_imports_with_verified_counts(
    samples_dir: Path, name: str, count: int, forks: int, tip: str, ignored: dict[str, int]
) -> None:
    conv = _one(samples_dir / "claude_code" / name)
    assert conv.source_format == "claude_code"
    assert len(_main(conv)) == count
    assert len(_branch_points(conv.messages)) == forks
    assert conv.tip == tip
    assert conv.ignored_records == Counter(ignored)
    assert not conv.incomplete
    assert conv.title


def test_sniff_accepts_every_sample(samples_dir: Path) -> None:
    files = sorted((samples_dir / "claude_code").rglob("*.jsonl"))
    assert len(files) == 12
    assert all(claude_code.sniff(f) for f in files)
    assert claude_code.sniff(samples_dir / "claude_code")


def test_sniff_rejects_other_formats(samples_dir: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.jsonl"
    text.write_text("just some text\nsecond line\n")
    for other in [
        samples_dir / "chatgpt" / "chatgpt-tree.json",
        samples_dir / "chatgpt" / "single-conversation.json",
        samples_dir / "pi" / "branching.jsonl",
        samples_dir / "sillytavern" / "Aqua-1673181146000.jsonl",
        text,
    ]:
        assert not claude_code.sniff(other), other


def test_P1_parallel_tool_calls_leave_every_result_on_the_active_path(samples_dir: Path) -> None:
    conv = _one(samples_dir / "claude_code" / WORKTREES)
    path = path_to(conv.messages, conv.tip)
    assert path == _main(conv)
    uses = {p.tool_use_id for m in path for p in m.tool_uses()}
    results = {p.tool_use_id for m in path for p in m.tool_results()}
    assert len(uses) == 40
    assert uses <= results
    assert pending_after(path)[-1] == []
    flags = boundary_flags(path)
    prompts = [i for i, m in enumerate(path) if m.is_prompt and i > 0]
    assert all(flags[i - 1] for i in prompts)
    moved = [m for m in path if "reparented_from" in m.source_meta]
    assert len([m for m in moved if m.is_tool_result_only]) == 25
    below_snapshots = [m for m in moved if not m.is_tool_result_only]
    assert len(below_snapshots) == 3 and all(m.is_prompt for m in below_snapshots)


def test_one_api_response_becomes_one_message_with_ordered_parts(samples_dir: Path) -> None:
    conv = _one(samples_dir / "claude_code" / "short.jsonl")
    reply = next(m for m in conv.messages if m.role == "assistant")
    assert [p.kind for p in reply.parts] == ["text", "thinking", "text", "tool_use", "tool_use"]
    assert reply.id == "1b7d717f-d6a2-46a6-8575-fa4f937450ea"
    assert len(reply.source_meta["uuids"]) == 5
    assert reply.parts[1].meta.get("signature")
    assert reply.usage is not None and reply.usage.output_tokens is not None
    assert reply.source_meta["message_id"].startswith("msg_")
    results = [m for m in conv.messages if m.is_tool_result_only]
    assert [m.parent_id for m in results] == [reply.id, results[0].id]


def test_user_fork_is_kept_as_a_branch(samples_dir: Path) -> None:
    conv = _one(samples_dir / "claude_code" / "dag_fork.jsonl")
    assert _branch_points(conv.messages) == {"c": ["d", "i"]}
    assert [m.id for m in path_to(conv.messages, conv.tip)] == ["a", "b", "c", "i", "j", "k"]
    assert conv.meta["session_ids"] == ["s1", "s2", "s3"]
    assert conv.title == "Start"
    assert conv.created_at == pytest.approx(1751364000.0)


def test_ideas_fork_is_the_only_branch_point(samples_dir: Path) -> None:
    conv = _one(samples_dir / "claude_code" / IDEAS)
    forks = _branch_points(conv.messages)
    assert forks == {  # the stop hook's notice after the answer; a snapshot above each prompt
        "eb84e3ee-fc54-4fe4-ad76-badc5ebb4671": [
            "snapshot:5270777a-1975-4e8a-9cad-b36280ae0ec5",
            "snapshot:9edc38e6-0ac0-42c0-b911-e24611af2a5b",
        ]
    }
    by_id = {m.id: m for m in conv.messages}
    assert by_id["eb84e3ee-fc54-4fe4-ad76-badc5ebb4671"].parent_id == (
        "3220c04b-b0dc-48b5-845b-3c1c10f6a684")
    assert by_id["5270777a-1975-4e8a-9cad-b36280ae0ec5"].parent_id == (
        "snapshot:5270777a-1975-4e8a-9cad-b36280ae0ec5")
    assert len(path_to(conv.messages, conv.tip)) == 24
    assert conv.meta["file_history_snapshots"] == 9


SUBAGENTS = {  # agent id → (messages, tool call that spawned it)
    "a36efb2a1231c41e2": (14, "toolu_017y4gSjMWeQ3L2DAKiygU2y"),
    "a4ca7529859c158c2": (45, "toolu_01GmrK6tgdD9D5xD6W5X9UUy"),
    "a52886dc180afb356": (34, "toolu_016neBD9WjCCZqzRTP3afGDT"),
    "a6aa8ad077d9ea083": (12, "toolu_0151DrVyXBXfb63SXGNF1qDb"),
    "ab1e6e141221a29ab": (33, "toolu_01EaAN7bPNQrMTGoKhbEjVrx"),
    "aef063ba534d73153": (12, "toolu_01N26s4U6vDxE1NRAH5CyCNf"),
}


def test_subagents_are_separate_roots_linked_to_their_agent_call(samples_dir: Path) -> None:
    conv = _one(samples_dir / "claude_code" / WORKTREES)
    assert len(conv.messages) == 71 + sum(n for n, _ in SUBAGENTS.values())
    agent_calls = {
        p.tool_use_id for m in _main(conv) for p in m.tool_uses() if p.tool_name == "Agent"
    }
    roots = [m for m in conv.messages if m.parent_id is None]
    assert len(roots) == 1 + len(SUBAGENTS)
    for agent_id, (count, use_id) in SUBAGENTS.items():
        mine = [m for m in conv.messages if m.source_meta.get("subagent") == agent_id]
        assert len(mine) == count
        (root,) = [m for m in mine if m.parent_id is None]
        assert root.source_meta["spawned_by_tool_use_id"] == use_id
        assert use_id in agent_calls
    described = {s["agent_id"]: s["description"] for s in conv.meta["subagents"]}
    assert described["ab1e6e141221a29ab"] == "Research Steve Yegge Beads"


def test_projects_folder_yields_one_conversation_per_session(samples_dir: Path) -> None:
    convs = list(claude_code.read(samples_dir / "claude_code"))
    assert sorted(Path(c.source_path or "").name for c in convs) == sorted(
        [Path(IDEAS).name, Path(WORKTREES).name, "dag_cycle.jsonl", "dag_fork.jsonl",
         "short.jsonl", "tool_heavy.jsonl"]
    )  # fmt: skip
    project = list(claude_code.read(samples_dir / "claude_code" / "-experiments-worktrees"))
    assert [c.source_id for c in project] == ["ef958aa1-0e93-49f0-bb71-150f63befcd1"]
    assert len(project[0].meta["subagents"]) == 6


def test_title_and_metadata_come_from_the_first_real_prompt(samples_dir: Path) -> None:
    conv = _one(samples_dir / "claude_code" / "tool_heavy.jsonl")
    assert conv.title == "start phoenix in background"
    assert conv.source_id == "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
    first = next(m for m in conv.messages if "meta_record" not in m.source_meta)
    assert first.source_meta["cwd"] == "/home/marco/projects/spotter"
    assert first.source_meta["gitBranch"] == "master"
    assert conv.created_at is not None and conv.created_at > 1.7e9
