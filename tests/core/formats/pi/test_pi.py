"""pi / oh-my-pi sessions: the real v3 sample, hand-written v1 and v2 sessions, repairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from explorer.formats import pi
from explorer.formats.base import ImportedConversation
from explorer.tree.paths import children_map, message_path


def _write(tmp_path: Path, records: list[Any], name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def _one(path: Path) -> ImportedConversation:
    convs = list(pi.read(path))
    assert len(convs) == 1
    return convs[0]


def _by_id(conv: ImportedConversation) -> dict[Any, Any]:
    return {m.id: m for m in conv.messages}


def _msg(
    eid: str | None, parent: str | None, role: str, content: Any, **extra: Any
) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "message", "timestamp": "2025-01-01T00:00:00Z",
                             "message": {"role": role, "content": content, **extra}}
    if eid is not None:
        entry.update(id=eid, parentId=parent)
    return entry


# -- the real sample -------------------------------------------------------------


def test_sample_messages_skip_non_message_entries(samples_dir: Path) -> None:
    conv = _one(samples_dir / "pi" / "branching.jsonl")
    msgs = _by_id(conv)
    # e2 (model_change) and e5 (compaction) are tree nodes, not messages.
    assert list(msgs) == ["e1", "e3", "e4", "e6", "e7"]
    assert msgs["e3"].parent_id == "e1"  # through the model_change entry
    assert msgs["e6"].parent_id == "e4"  # through the compaction entry
    assert msgs["e7"].parent_id == "e1"  # the branch
    assert children_map(conv.messages)["e1"] == ["e3", "e7"]
    roles = ["user", "assistant", "tool", "assistant", "assistant"]
    assert [m.role for m in conv.messages] == roles


def test_sample_parts_usage_and_model(samples_dir: Path) -> None:
    msgs = _by_id(_one(samples_dir / "pi" / "branching.jsonl"))
    call = msgs["e3"].parts[0]
    assert (call.kind, call.tool_name, call.tool_use_id, call.text) == (
        "tool_use", "read", "call-1", "{}")
    result = msgs["e4"].parts[0]
    assert (result.kind, result.tool_use_id, result.text, result.is_error) == (
        "tool_result", "call-1", "redacted fixture", False)
    assert msgs["e3"].usage is not None and msgs["e3"].usage.input_tokens == 10
    assert msgs["e3"].usage.output_tokens == 5
    assert msgs["e3"].model == "alpha"
    assert msgs["e4"].usage is None  # tool results carry no model usage
    assert msgs["e1"].source_id == "e1"


def test_sample_compaction_unknown_entry_tip_and_incomplete(samples_dir: Path) -> None:
    conv = _one(samples_dir / "pi" / "branching.jsonl")
    assert conv.ignored_records == {"future_entry": 1}
    [comp] = conv.compactions
    assert (comp.message_key, comp.kind, comp.summary) == ("e4", "summary", "sanitized")
    assert comp.meta["first_kept_key"] == "e3" and comp.meta["tokens_before"] == 100
    # The last entry (e8, unknown) hangs under e7: the tip walks back to it.
    assert conv.tip == "e7"
    # P3: e7 calls a tool that never answered, so the session ended mid-turn.
    assert conv.incomplete is True
    assert conv.context_start is None  # the compaction is on the other branch
    assert conv.source_id == "fixture-session" and conv.meta["cwd"] == "/fixture"
    assert conv.notes == []


# -- version 1: no ids, linear ---------------------------------------------------

V1 = [
    {"type": "session", "id": "v1-session", "timestamp": "2024-12-03T14:00:00.000Z", "cwd": "/p"},
    _msg(None, None, "user", "Hello"),
    {"type": "thinking_level_change", "timestamp": "2024-12-03T14:00:01Z", "thinkingLevel": "high"},
    _msg(None, None, "assistant", [{"type": "thinking", "thinking": "hmm"},
                                   {"type": "text", "text": "Hi!"}], model="m1",
         usage={"input": 3, "output": 4, "cacheRead": 1, "cacheWrite": 0}),
    _msg(None, None, "user", [{"type": "text", "text": "look"},
                              {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}]),
    {"type": "compaction", "timestamp": "2024-12-03T14:00:03Z", "summary": "earlier: greetings",
     "firstKeptEntryIndex": 4, "tokensBefore": 50},
    {"type": "message", "timestamp": "2024-12-03T14:00:04Z",
     "message": {"role": "bashExecution", "command": "ls", "output": "a b", "exitCode": 0}},
]


def test_v1_entries_chain_in_file_order(tmp_path: Path) -> None:
    conv = _one(_write(tmp_path, V1))
    path = message_path(_by_id(conv), conv.tip)
    assert [m.id for m in path] == [m.id for m in conv.messages]
    assert [m.role for m in path] == ["user", "assistant", "user", "user"]
    assert conv.messages[0].source_id is None  # v1 had no ids to keep
    assert conv.messages[1].parts[0].kind == "thinking"
    assert conv.messages[1].usage is not None and conv.messages[1].usage.cache_read_tokens == 1
    image = conv.messages[2].parts[1]
    assert (image.kind, image.data, image.media_type) == ("image", b"hello", "image/png")
    assert conv.messages[3].text == "$ ls\na b"
    assert conv.meta["thinking_levels"] == ["high"]
    assert conv.title == "Hello"


def test_v1_compaction_index_counts_from_the_header(tmp_path: Path) -> None:
    conv = _one(_write(tmp_path, V1))
    [comp] = conv.compactions
    look = conv.messages[2]  # object #4 in the file: header 0, then entries 1..
    assert look.text == "look"
    assert comp.message_key == look.id and comp.meta["first_kept_key"] == look.id
    # P4: the compaction is on the active path, so the active context starts there.
    assert conv.context_start == look.id
    assert conv.incomplete is False


# -- version 2: ids, labels, branch summaries -----------------------------------

V2 = [
    {"type": "session", "version": 2, "id": "v2", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/q"},
    _msg("a", None, "user", "first"),
    _msg("b", "a", "assistant", [{"type": "text", "text": "one"}]),
    {"type": "label", "id": "l1", "parentId": "b", "targetId": "b", "label": "good"},
    _msg("c", "l1", "user", "explore"),
    _msg("d", "c", "assistant", [{"type": "text", "text": "explored"}]),
    {"type": "label", "id": "l2", "parentId": "d", "targetId": "d", "label": "temp"},
    {"type": "label", "id": "l3", "parentId": "l2", "targetId": "d", "label": None},
    {"type": "branch_summary", "id": "s1", "parentId": "b", "fromId": "l3",
     "summary": "tried exploring"},
    {"type": "custom_message", "id": "cm", "parentId": "s1", "customType": "note",
     "content": "injected", "display": True},
    {"type": "custom", "id": "cu", "parentId": "cm", "customType": "ext", "data": {}},
    {"type": "session_info", "id": "si", "parentId": "cu", "name": "My session"},
]


def test_v2_tree_labels_and_branch_summary(tmp_path: Path) -> None:
    conv = _one(_write(tmp_path, V2))
    msgs = _by_id(conv)
    assert msgs["c"].parent_id == "b"  # through the label entry
    assert msgs["cm"].parent_id == "b" and msgs["cm"].role == "user"
    assert msgs["cm"].source_meta["pi_role"] == "custom"
    assert conv.tip == "cm"
    assert [(c.label, c.message_key) for c in conv.checkpoints] == [("good", "b")]
    [summary] = conv.compactions
    assert (summary.kind, summary.message_key, summary.summary) == (
        "branch_summary", "b", "tried exploring")
    assert summary.meta["from_key"] == "d"
    assert conv.ignored_records == {"custom": 1}
    assert conv.title == "My session"


# -- repairs ---------------------------------------------------------------------


def test_damaged_lines_are_skipped_with_line_numbers(tmp_path: Path) -> None:
    records = [V2[0], V2[1], "[1, 2]", "{not json", V2[2], '{"type": "message", "id": "x", "par']
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records))
    conv = _one(path)
    assert [m.id for m in conv.messages] == ["a", "b"]
    joined = " ".join(conv.notes)
    assert "line 3" in joined and "line 4" in joined and "truncated last line" in joined
    assert "line 6" in joined


def test_dangling_parent_becomes_root_with_note(tmp_path: Path) -> None:
    conv = _one(_write(tmp_path, [V2[0], V2[1], _msg("b", "ghost", "assistant", "x")]))
    assert _by_id(conv)["b"].parent_id is None
    assert any("ghost" in n and "root" in n for n in conv.notes)


def test_duplicate_ids_keep_the_first(tmp_path: Path) -> None:
    conv = _one(_write(tmp_path, [V2[0], V2[1], _msg("a", None, "user", "again")]))
    assert [m.text for m in conv.messages] == ["first"]
    assert any("duplicate" in n and "'a'" in n for n in conv.notes)


def test_cycles_are_cut(tmp_path: Path) -> None:
    records = [V2[0], _msg("a", "b", "user", "x"), _msg("b", "a", "assistant", "y")]
    conv = _one(_write(tmp_path, records))
    assert sum(m.parent_id is None for m in conv.messages) == 1
    assert any("cycle" in n for n in conv.notes)


def test_cycle_through_non_message_entries_is_cut(tmp_path: Path) -> None:
    records = [V2[0], {"type": "model_change", "id": "m1", "parentId": "m2"},
               {"type": "model_change", "id": "m2", "parentId": "m1"},
               _msg("a", "m1", "user", "x")]
    conv = _one(_write(tmp_path, records))
    assert _by_id(conv)["a"].parent_id is None
    assert any("cycle" in n for n in conv.notes)


def test_unknown_roles_and_blocks_are_counted(tmp_path: Path) -> None:
    records = [V2[0], _msg("a", None, "user", [{"type": "video", "url": "x"},
                                               {"type": "text", "text": "hi"}]),
               _msg("b", "a", "oracle", "?"), {"id": "n", "parentId": "a"}]
    conv = _one(_write(tmp_path, records))
    assert conv.ignored_records == {"block:video": 1, "message:oracle": 1, "<no type>": 1}
    assert [m.text for m in conv.messages] == ["hi"]


def test_missing_header_is_a_format_error(tmp_path: Path) -> None:
    import pytest

    from explorer.formats.base import FormatError

    with pytest.raises(FormatError, match="session header"):
        list(pi.read(_write(tmp_path, [V2[1]])))


# -- sniffing -----------------------------------------------------------------------

OTHERS = ("claude_code/short.jsonl", "chatgpt/chatgpt-tree.json", "librechat/librechat-tree.json",
          "sillytavern/Aqua-1673181146000.jsonl", "openwebui/openwebui-export.json")


def test_sniff_accepts_pi_sessions(samples_dir: Path, tmp_path: Path) -> None:
    assert pi.sniff(samples_dir / "pi" / "branching.jsonl")
    assert pi.sniff(_write(tmp_path, V1, "v1.jsonl"))
    assert pi.sniff(_write(tmp_path, V2, "v2.jsonl"))


def test_sniff_rejects_other_formats(samples_dir: Path, tmp_path: Path) -> None:
    for name in OTHERS:
        assert not pi.sniff(samples_dir / name), name
    text = tmp_path / "notes.txt"
    text.write_text("just some words\nabout a session\n")
    assert not pi.sniff(text)
