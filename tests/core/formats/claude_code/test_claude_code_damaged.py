"""Claude Code importer on small hand-written files, most of them damaged on purpose."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from explorer.formats import claude_code
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.claude_code.tree import path_to

FIXTURES = Path(__file__).parent / "fixtures"


def _one(name: str) -> ImportedConversation:
    convs = list(claude_code.read(FIXTURES / name))
    assert len(convs) == 1
    return convs[0]


def _edges(conv: ImportedConversation) -> list[tuple[object, object]]:
    return [(m.id, m.parent_id) for m in conv.messages]


def test_truncated_last_line_is_skipped_with_its_line_number() -> None:
    conv = _one("truncated_last_line.jsonl")
    assert _edges(conv) == [("u1", None), ("a1", "u1")]
    assert conv.notes == ["skipped line 3: truncated last line (no newline and not valid JSON)"]


def test_non_object_and_invalid_json_lines_are_noted() -> None:
    conv = _one("non_object_line.jsonl")
    assert _edges(conv) == [("u1", None), ("a1", "u1")]
    assert conv.notes == [
        "skipped line 2: not a JSON object (a list)",
        "skipped line 3: not a JSON object (a string)",
    ]
    bad = _one("invalid_json.jsonl")
    assert len(bad.messages) == 2
    assert bad.notes == ["skipped line 2: invalid JSON (Expecting value)"]


def test_T5_dangling_parent_mid_file_links_to_the_previous_message_with_a_note() -> None:
    conv = _one("dangling_parent.jsonl")
    assert _edges(conv) == [("u1", None), ("a1", "u1"), ("u2", "a1"), ("a2", "u2")]
    assert conv.tip == "a2"
    assert {m.id: m for m in conv.messages}["u2"].source_meta["written_parent"] == "missing-uuid"
    assert any("parent missing-uuid is not in the file" in n for n in conv.notes)


def test_T5_dangling_parent_on_the_first_line_becomes_a_root_with_a_note(tmp_path: Path) -> None:
    lines = (FIXTURES / "dangling_parent.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["parentUuid"] = "in-an-earlier-file"
    path = tmp_path / "continued.jsonl"
    path.write_text("\n".join([json.dumps(first), lines[1]]) + "\n", encoding="utf-8")
    (conv,) = list(claude_code.read(path))
    assert _edges(conv) == [("u1", None), ("a1", "u1")]
    assert any("'in-an-earlier-file' is missing" in n for n in conv.notes)


def test_T5_replayed_uuids_keep_the_first_and_are_counted_once() -> None:
    conv = _one("duplicate_uuid.jsonl")
    assert [m.id for m in conv.messages] == ["u1", "a1", "u2", "a2", "u3", "a3"]
    dup_notes = [n for n in conv.notes if "repeated" in n]
    assert dup_notes == [
        "3 repeated entries (same uuid, as a resumed session replays its history): "
        "kept the first of each"
    ]


def test_cycles_are_cut_not_followed() -> None:
    conv = _one("cycle.jsonl")
    ids = {m.id for m in conv.messages}
    assert ids == {"u1", "a1", "x", "y", "z", "w", "v"}
    by_id = {m.id: m for m in conv.messages}
    assert by_id["x"].parent_id is None
    assert by_id["w"].parent_id is None
    assert conv.tip == "v"
    assert [m.id for m in path_to(conv.messages, conv.tip)] == ["u1", "a1", "v"]
    assert any("cycle" in n for n in conv.notes)
    assert any("loop at p1" in n for n in conv.notes)
    assert conv.ignored_records["progress"] == 2


@pytest.mark.parametrize("name", ["empty.jsonl", "only_records.jsonl"])
def test_file_without_messages_is_a_format_error(name: str) -> None:
    with pytest.raises(FormatError, match="no Claude Code messages"):
        list(claude_code.read(FIXTURES / name))


def test_folder_with_damaged_message_less_file_reports_it_after_the_good_ones(
    tmp_path: Path,
) -> None:
    shutil.copy(FIXTURES / "mid_turn.jsonl", tmp_path / "good.jsonl")
    (tmp_path / "bad.jsonl").write_text("[1]\n{broken\n")
    seen = []
    with pytest.raises(FormatError, match=r"1 files could not be read: bad\.jsonl"):
        for conv in claude_code.read(tmp_path):
            seen.append(conv.source_path)
    assert seen == [str(tmp_path / "good.jsonl")]


def test_P3_session_ending_mid_turn_is_incomplete() -> None:
    conv = _one("mid_turn.jsonl")
    assert conv.incomplete
    assert not _one("compact_boundary.jsonl").incomplete


def test_compact_boundary_links_across_and_records_the_summary() -> None:
    conv = _one("compact_boundary.jsonl")
    assert [m.id for m in path_to(conv.messages, conv.tip)] == ["u1", "a1", "cb", "cs", "u3", "a3"]
    (comp,) = conv.compactions
    assert comp.message_key == "cb"
    assert comp.kind == "compact_boundary"
    assert comp.summary.startswith("This session is being continued")
    assert comp.meta["trigger"] == "auto"
    assert comp.meta["preTokens"] == 155000
    assert comp.meta["logical_parent"] == "a1"
    assert conv.context_start == "cb"
    assert any("logical parent a1" in n for n in conv.notes)


def test_summary_and_custom_title() -> None:
    named = _one("summary_and_title.jsonl")
    assert named.title == "My named session"
    assert [(c.kind, c.message_key, c.summary) for c in named.compactions] == [
        ("summary", "a1", "Greeting exchange")
    ]
    assert _one("summary_only_title.jsonl").title == "Greeting exchange"
    assert _one("dangling_parent.jsonl").title == "Hello there"


def test_blocks_become_parts_and_parallel_results_are_chained() -> None:
    conv = _one("parallel_blocks.jsonl")
    by_id = {m.id: m for m in conv.messages}
    prompt = by_id["u1"]
    assert [p.kind for p in prompt.parts] == ["text", "image"]
    assert prompt.parts[1].data == b"\x89PNG\r\n\x1a\nfake"
    assert prompt.parts[1].media_type == "image/png"
    reply = by_id["t1"]
    assert [p.kind for p in reply.parts] == ["thinking", "tool_use", "tool_use"]
    assert reply.parts[0].meta == {"signature": "sig=="}
    assert reply.parts[1].tool_name == "Read" and reply.parts[1].text == '{"p": 1}'
    assert reply.usage is not None
    assert reply.usage.to_dict() == {
        "input_tokens": 100, "output_tokens": 20, "cache_read_tokens": 7, "cache_write_tokens": 3,
    }  # fmt: skip
    shot = by_id["r2"]
    assert shot.is_tool_result_only
    assert [(p.text, p.is_error, p.media_type) for p in shot.parts] == [
        ("screen", True, None), ("", True, "image/png"),
    ]  # fmt: skip
    assert shot.source_meta["toolUseResult"]["truncated"] is True
    # r1 was written under c1 but carries the continuation, so it ends the chain
    assert by_id["r2"].parent_id == "t1"
    assert by_id["r1"].parent_id == "r2"
    assert by_id["r1"].source_meta["reparented_from"] == "c1"
    assert by_id["a2"].parent_id == "r1"
    # the two prompts under a2 are a real user fork; the tip is the last line
    assert [m.id for m in conv.messages if m.parent_id == "a2"] == ["f2", "f1"]
    assert conv.tip == "f1"


def test_old_top_level_agent_file_joins_its_session_as_a_linked_root() -> None:
    convs = list(claude_code.read(FIXTURES / "old_project"))
    assert len(convs) == 1
    conv = convs[0]
    by_id = {m.id: m for m in conv.messages}
    assert by_id["s1"].parent_id is None
    assert by_id["s1"].source_meta["spawned_by_tool_use_id"] == "toolu_task"
    assert by_id["s2"].source_meta["subagent"] == "deadbeef"
    assert [m.id for m in path_to(conv.messages, conv.tip)] == ["m1", "m2", "m3", "m4"]
    single = list(claude_code.read(FIXTURES / "old_project" / f"{conv.source_id}.jsonl"))
    assert {m.id for m in single[0].messages} == set(by_id)


def test_read_rejects_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(FormatError):
        list(claude_code.read(tmp_path / "nope"))


def test_an_empty_uuid_is_still_the_tip(tmp_path: Path) -> None:
    """Found by fuzzing: a last entry whose uuid is "" must not lose the tip."""
    lines = [
        {"type": "user", "uuid": "a", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": "hello"}},
        {"type": "assistant", "uuid": "", "parentUuid": "a", "sessionId": "s",
         "message": {"role": "assistant", "id": "m1", "content": [{"type": "text", "text": "hi"}]}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    (conv,) = claude_code.read(path)
    assert conv.tip == ""
