"""pi / oh-my-pi sessions: the recorded v3 session, hand-written v1 and v2 sessions, repairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_home import GEMINI, PI_FORK, claude_session, codex_rollout, pi_session, recorded

from explorer.formats import pi
from explorer.formats.base import ImportedConversation
from explorer.tree.paths import children_map, message_path
from tests.corpus import CORPUS


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


# -- the recorded session ------------------------------------------------------
# pi 0.73.1 wrote it (tests/corpus/pi): a model_change and a thinking_level_change entry
# open the tree, then three prompts on one branch and a fourth from the first answer.

ANSWER = "5b25cd53"  # the first answer: both branches grow from it
FIRST_ROAD = ["3657adb1", ANSWER, "260a907d", "9a6f39dc", "c1c7384e", "bd4ea676", "64bf4254",
              "94c7e834", "10497bc6", "c5ae7d94", "4bf68a59", "36d8a140", "ccf002ce", "0924d35c"]
SECOND_ROAD = ["bd322d26", "dedd98a7", "7e0301af", "cbd32194"]


def _recorded_lines() -> list[str]:
    return pi_session().read_text().splitlines()


def test_recorded_messages_skip_non_message_entries() -> None:
    conv = _one(pi_session())
    msgs = _by_id(conv)
    # the session header, model_change and thinking_level_change entries are not messages
    assert list(msgs) == FIRST_ROAD + SECOND_ROAD
    assert msgs["3657adb1"].parent_id is None  # through both opening entries
    assert msgs["bd322d26"].parent_id == ANSWER  # the second branch
    assert children_map(conv.messages)[ANSWER] == ["260a907d", "bd322d26"]
    roles = [m.role for m in conv.messages]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "assistant", "tool",
                     "assistant", "user", "assistant", "tool", "assistant", "tool", "assistant",
                     "user", "assistant", "tool", "assistant"]
    assert conv.meta["model_changes"] == [{"provider": "localfake", "modelId": "fake-model"}]
    assert conv.meta["thinking_levels"] == ["off"]


def test_recorded_parts_usage_and_model() -> None:
    msgs = _by_id(_one(pi_session()))
    words, call = msgs["9a6f39dc"].parts
    assert (words.kind, words.text) == ("text", "Calling bash (reply 2).")
    assert (call.kind, call.tool_name, call.tool_use_id, json.loads(call.text)) == (
        "tool_use", "bash", "call_560462315909", {"command": "ls -1"})
    result = msgs["c1c7384e"].parts[0]
    assert (result.kind, result.tool_use_id, result.text, result.is_error) == (
        "tool_result", "call_560462315909", "notes.txt\n", False)
    read = msgs["64bf4254"].parts[0]
    assert read.text == "first line of the notes\nsecond line\n"
    usage = msgs["9a6f39dc"].usage
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (1234, 9)
    assert msgs["9a6f39dc"].model == "fake-model"
    assert msgs["c1c7384e"].usage is None  # tool results carry no model usage
    assert msgs["3657adb1"].source_id == "3657adb1"


def test_recorded_tip_folder_and_a_clean_end() -> None:
    conv = _one(pi_session())
    assert conv.tip == "cbd32194"  # the last entry written: the end of the second branch
    assert conv.incomplete is False and conv.compactions == [] and conv.context_start is None
    assert conv.source_id == "01a2436d-3203-742a-b948-b985f4b16523"
    assert conv.meta["cwd"] == "/tmp/convo-corpus/pi/work" and conv.meta["version"] == 3
    assert conv.ignored_records == {} and conv.notes == []
    assert conv.title == "Say hello and tell me what this folder is for."


def test_recorded_session_with_a_compaction_an_unknown_entry_and_an_open_call(
        tmp_path: Path) -> None:
    """The recording rewritten: a compaction entry after the first branch's reading turn
    (keeping that turn from its prompt on), an entry of a kind not yet known after the second
    branch's call, and that call's result and answer cut off."""
    lines = _recorded_lines()
    compaction = {"type": "compaction", "id": "c0mpact1", "parentId": "94c7e834",
                  "timestamp": "2026-12-04T23:39:22.000Z", "summary": "Looked around.",
                  "firstKeptEntryId": "260a907d", "tokensBefore": 4936}
    entries = [json.loads(line) for line in lines]
    entries.insert(11, compaction)
    entries[12]["parentId"] = "c0mpact1"  # the next prompt now hangs from the compaction
    future = {"type": "future_entry", "id": "f0f0f0f0", "parentId": "dedd98a7",
              "timestamp": "2026-12-04T23:39:25.000Z", "secret": "ignored"}
    entries = [e for e in entries if e.get("id") not in ("7e0301af", "cbd32194")] + [future]
    conv = _one(_write(tmp_path, entries))
    msgs = _by_id(conv)
    assert msgs["10497bc6"].parent_id == "94c7e834"  # through the compaction entry
    assert conv.ignored_records == {"future_entry": 1}
    [comp] = conv.compactions
    assert (comp.message_key, comp.kind, comp.summary) == ("94c7e834", "summary",
                                                           "Looked around.")
    assert comp.meta["first_kept_key"] == "260a907d" and comp.meta["tokens_before"] == 4936
    # The unknown entry hangs under the bash call: the tip walks back to it.
    assert conv.tip == "dedd98a7"
    # P3: the call never answered, so the session ended mid-turn.
    assert conv.incomplete is True
    assert conv.context_start is None  # the compaction is on the other branch
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


def test_sniff_accepts_pi_sessions(tmp_path: Path) -> None:
    assert pi.sniff(pi_session()) and pi.sniff(pi_session(PI_FORK))
    assert pi.sniff(_write(tmp_path, V1, "v1.jsonl"))
    assert pi.sniff(_write(tmp_path, V2, "v2.jsonl"))


def test_sniff_rejects_other_formats(tmp_path: Path) -> None:
    others = [codex_rollout(), claude_session(), recorded("gemini_cli", GEMINI),
              *sorted((CORPUS / "exports").rglob("*.json*"))]
    assert len(others) > 5
    for path in others:
        assert not pi.sniff(path), path
    text = tmp_path / "notes.txt"
    text.write_text("just some words\nabout a session\n")
    assert not pi.sniff(text)
