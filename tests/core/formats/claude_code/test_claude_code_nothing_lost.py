"""Claude Code sessions where a broken line, a damaged line or a compaction subagent
used to lose or misplace messages (fixtures written for each case)."""

from __future__ import annotations

from pathlib import Path

from explorer.formats import claude_code
from explorer.formats.base import ImportedConversation
from explorer.formats.claude_code.tree import path_to
from explorer.tree.paths import children_map

FIXTURES = Path(__file__).parent / "fixtures"


def _one(path: Path) -> ImportedConversation:
    (conv,) = list(claude_code.read(path))
    return conv


def _path_texts(conv: ImportedConversation) -> list[str]:
    return [m.text for m in path_to(conv.messages, conv.tip)]


def test_claude_code_broken_line_does_not_push_out_the_valid_line_with_its_uuid() -> None:
    conv = _one(FIXTURES / "broken_line_claims_uuid.jsonl")
    assert _path_texts(conv) == ["First question", "First answer", "Second question",
                                 "Second answer", "Third question", "Third answer"]
    notes = " ".join(conv.notes)
    assert "line 3: user entry without a message object; skipped" in notes
    assert "line 4: assistant entry without content; skipped" in notes
    assert "replaces an earlier incomplete line with uuid u2" in notes
    assert not any("repeated" in n for n in conv.notes)


def test_claude_code_compaction_subagent_is_a_separate_root_not_grafted() -> None:
    conv = _one(FIXTURES / "compact_agent" / "55555555-4444-3333-2222-111111111111.jsonl")
    by_id = {m.id: m for m in conv.messages}
    kids = children_map(conv.messages)
    for main in ("m1", "m2", "m3", "m4"):
        assert all(by_id[k].source_meta.get("subagent") is None for k in kids.get(main, [])), main
    assert [m.id for m in conv.messages if m.parent_id is None] == ["m1", "c1"]
    root = by_id["c1"]
    assert root.source_meta["subagent"] == "acompact-7f3e"
    assert root.source_meta["started_from"] == "m4"
    assert by_id["c3"].parent_id == "c2"  # its written parent m2 is in the main session
    assert by_id["c3"].source_meta["written_parent"] == "m2"
    assert _path_texts(conv) == ["Refactor the parser", "Done with step one", "Continue",
                                 "Done with step two"]


def test_claude_code_damaged_middle_line_does_not_split_the_session() -> None:
    conv = _one(FIXTURES / "damaged_middle_line.jsonl")
    assert len(conv.messages) == 11
    assert [m.id for m in conv.messages if m.parent_id is None] == ["u1"]
    path = path_to(conv.messages, conv.tip)
    assert len(path) == 11 and path[-1].text == "Answer 6"
    assert {m.id: m for m in conv.messages}["u4"].parent_id == "u3"
    notes = " ".join(conv.notes)
    assert "skipped line 6" in notes
    assert "line 7: parent a3 is not in the file (a damaged or missing line)" in notes


def test_claude_code_file_without_any_parent_chains_in_file_order() -> None:
    conv = _one(FIXTURES / "all_parents_null.jsonl")
    assert [(m.id, m.parent_id) for m in conv.messages] == [
        ("n1", None), ("n2", "n1"), ("n3", "n2"), ("n4", "n3")]
    assert _path_texts(conv) == ["One", "Two", "Three", "Four"]
    assert any("chained the messages in file order" in n for n in conv.notes)


def test_V1_the_compaction_agent_links_to_the_message_it_started_from(tmp_path: Path) -> None:
    """It has no spawning call, so the graph's dashed link and the turn view's "from #N"
    follow ``started_from``: the main-session message the agent read up to."""
    from explorer.app.importing.run import import_paths
    from explorer.store import Store
    from explorer.store.turn_reads import read_subagents, subagent_links

    with Store(tmp_path / "c.db") as store:
        import_paths(store, [FIXTURES / "compact_agent"])
        [conv] = [c.id for c in store.conversations()]
        ids = {n.id: store.message(n.id).source_id for n in store.skeleton(conv)}
        by_source = {s: i for i, s in ids.items()}
        [info] = read_subagents(store.reader, conv).values()
        assert info.call_message == by_source["m4"] and info.tool_use_id is None
        assert subagent_links(store.reader, conv) == {by_source["c1"]: by_source["m4"]}
