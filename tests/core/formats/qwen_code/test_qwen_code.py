"""Qwen Code chat recordings: the real client's recording reads faithfully (checked against
its own lines), a read from a cursor goes on where the last stopped, detection never
mixes it up with Claude Code or Gemini CLI, and damaged or unknown records are named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from explorer.formats import claude_code, gemini_cli, qwen_code
from explorer.formats.common import parse_time
from explorer.formats.registry import detect
from tests.corpus import CORPUS, manifests

CHATS = sorted((CORPUS / "qwen_code").rglob("chats/*.jsonl"))
PROMPTS = manifests()["qwen_code"]["prompts"]


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def main_session() -> Path:
    """The session continued, resumed and then forked (it holds the most prompts)."""
    return max(CHATS, key=lambda p: sum(r["type"] == "user" for r in records(p)))


def test_every_record_of_the_recording_reads_as_the_client_wrote_it() -> None:
    path = main_session()
    raw = records(path)
    [conv] = qwen_code.read(path)
    by_id = {m.id: m for m in conv.messages}
    said = [r for r in raw if r["type"] in ("user", "assistant", "tool_result")]
    assert [m.id for m in conv.messages] == [r["uuid"] for r in said]
    for r in said:
        m = by_id[r["uuid"]]
        assert m.created_at == parse_time(r["timestamp"])
        texts = [p["text"] for p in r["message"]["parts"] if "text" in p]
        assert m.text == "\n".join(texts)
        if r["type"] == "assistant":
            assert m.role == "assistant" and m.model == r["model"] == "fake-model"
            assert m.usage is not None and m.usage.input_tokens == \
                r["usageMetadata"]["promptTokenCount"]
    assert [m.text for m in conv.messages if m.role == "user"] == PROMPTS[:4]
    assert conv.source_id == raw[0]["sessionId"] == path.stem
    assert conv.meta["cwd"] == "/tmp/convo-corpus/qwen_code/work"
    assert conv.meta["version"] == "0.24.4"
    assert conv.created_at == parse_time(raw[0]["timestamp"])
    assert conv.title == PROMPTS[0] and conv.notes == [] and not conv.incomplete


def test_each_tool_call_has_its_result_and_the_tree_skips_bookkeeping_records() -> None:
    [conv] = qwen_code.read(main_session())
    calls = [p for m in conv.messages for p in m.tool_uses()]
    assert [c.tool_name for c in calls] == ["run_shell_command", "read_file", "write_file",
                                            "edit"]
    assert json.loads(calls[0].text)["command"] == "ls -1"
    results = {p.tool_use_id: p for m in conv.messages for p in m.tool_results()}
    assert set(results) == {c.tool_use_id for c in calls}
    assert results[calls[1].tool_use_id].text == "first line of the notes\nsecond line\n"
    assert "2nd line" in results[calls[3].tool_use_id].meta["diff"]
    assert not any(r.is_error for r in results.values())
    ids = {m.id for m in conv.messages}
    assert all(m.parent_id in ids for m in conv.messages[1:])  # telemetry records are no parents
    for above, below in zip(conv.messages, conv.messages[1:], strict=False):
        assert below.parent_id == above.id  # one branch: each message continues the previous
    assert conv.ignored_records["system:ui_telemetry"] > 0
    assert conv.tip == conv.messages[-1].id


def test_a_forked_session_is_a_conversation_of_its_own() -> None:
    convs = {c.source_id: c for p in CHATS for c in qwen_code.read(p)}
    assert len(convs) == 3
    forked = [c for c in convs.values() if len([m for m in c.messages if m.role == "user"]) == 3]
    [fork] = forked
    [main] = qwen_code.read(main_session())
    assert [m.id for m in fork.messages] == [m.id for m in main.messages][:len(fork.messages)]


def test_a_read_from_a_cursor_goes_on_where_the_last_stopped(tmp_path: Path) -> None:
    path = main_session()
    raw = path.read_bytes().splitlines(keepends=True)
    live = tmp_path / "chat.jsonl"
    live.write_bytes(b"".join(raw[:9]) + raw[9][:40])  # a line still being written
    first = qwen_code.read_tail(live, None)
    live.write_bytes(b"".join(raw))
    second = qwen_code.read_tail(live, first.cursor)
    [whole] = qwen_code.read(path)
    got = first.conversation.messages + second.conversation.messages
    assert [(m.id, m.parent_id, m.role, m.text) for m in got] == \
        [(m.id, m.parent_id, m.role, m.text) for m in whole.messages]
    assert second.conversation.source_id == whole.source_id
    assert second.conversation.tip == whole.tip
    assert qwen_code.read_tail(live, second.cursor).conversation.messages == []


def test_detection_claims_qwen_code_files_and_only_those(tmp_path: Path) -> None:
    for path in CHATS:
        assert detect(path) is qwen_code
        assert claude_code.sniff(path)  # why qwen_code is asked first
    gemini = next((CORPUS / "gemini_cli").rglob("*.jsonl"))
    others = [*sorted((CORPUS / "claude_code").rglob("*.jsonl")), gemini]
    assert len(others) > 2
    for path in others:
        assert not qwen_code.sniff(path), path
    assert detect(gemini) is gemini_cli
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert not qwen_code.sniff(empty)


def test_damaged_lines_are_named_and_unknown_records_noted_once_per_kind(
        tmp_path: Path) -> None:
    raw = main_session().read_text().splitlines(keepends=True)
    path = tmp_path / "chat.jsonl"
    last = json.loads(raw[-1])
    base = {k: last[k] for k in ("sessionId", "timestamp", "cwd", "version")}
    extra = [{**base, "uuid": f"odd-{n}", "parentUuid": last["uuid"], "type": "hologram"}
             for n in range(2)]
    extra.append({**base, "uuid": "w1", "parentUuid": "odd-1", "type": "user",
                  "subtype": "whisper", "message": {"role": "user", "parts": []}})
    extra.append({**base, "uuid": "p1", "parentUuid": "w1", "type": "user",
                  "message": {"role": "user", "parts": [{"text": "after the odd ones"},
                                                       {"videoMetadata": {}}]}})
    answer = [r for r in records(main_session()) if r["type"] == "assistant"][-1]
    path.write_text("".join(raw[:3]) + "{not json\n" + "".join(raw[3:])
                    + "".join(json.dumps(e) + "\n" for e in extra))
    [conv] = qwen_code.read(path)
    assert "skipped line 4: invalid JSON" in conv.notes
    assert [n for n in conv.notes if "hologram" in n] == [
        f"line {len(raw) + 2}: a 'hologram' record is not a message; skipped"]
    assert [n for n in conv.notes if "whisper" in n] == [
        f"line {len(raw) + 4}: a 'user:whisper' record is not a message; skipped"]
    assert conv.ignored_records["hologram"] == 2 and conv.ignored_records["part:videoMetadata"]
    tail = conv.messages[-1]
    assert tail.text == "after the odd ones" and tail.parent_id == answer["uuid"]
    assert len([m for m in conv.messages if m.role == "user"]) == 5


def test_a_rewind_branches_the_tree_and_a_later_read_finds_its_place(tmp_path: Path) -> None:
    path = main_session()
    raw = records(path)
    live = tmp_path / "chat.jsonl"
    shutil.copy(path, live)
    first = qwen_code.read_tail(live, None)
    second_prompt = [r for r in raw if r["type"] == "user"][1]
    base = {k: raw[-1][k] for k in ("sessionId", "timestamp", "cwd", "version")}
    added = [
        {**base, "uuid": "rw", "parentUuid": raw[-1]["uuid"], "type": "system",
         "subtype": "rewind", "systemPayload": {}},
        {**base, "uuid": "again", "parentUuid": second_prompt["parentUuid"], "type": "user",
         "message": {"role": "user", "parts": [{"text": "Another way instead."}]}},
        {**base, "uuid": "t1", "parentUuid": "again", "type": "system",
         "subtype": "custom_title", "systemPayload": {"customTitle": "Renamed"}},
        {**base, "uuid": "cc", "parentUuid": "t1", "type": "system",
         "subtype": "chat_compression", "systemPayload": {
             "info": {"originalTokenCount": 900, "newTokenCount": 90},
             "compressedHistory": [{"role": "user", "parts": [{"text": "We looked around."}]}]}},
        {**base, "uuid": "after", "parentUuid": "cc", "type": "assistant", "model": "m2",
         "message": {"role": "model", "parts": [{"text": "thinking…", "thought": True},
                                                {"text": "Done."}]}},
    ]
    with live.open("a") as out:
        out.writelines(json.dumps(r) + "\n" for r in added)
    tail = qwen_code.read_tail(live, first.cursor).conversation
    assert [m.id for m in tail.messages] == ["again", "after"]
    # the rewind continues from the record before the second prompt: a telemetry record, whose
    # nearest message is the first answer
    [whole] = qwen_code.read(live)
    by_id = {m.id: m for m in whole.messages}
    assert tail.messages[0].parent_id == by_id[second_prompt["uuid"]].parent_id
    assert by_id["after"].parent_id == "again" and whole.tip == "after"
    assert [p.kind for p in by_id["after"].parts] == ["thinking", "text"]
    assert tail.title == whole.title == "Renamed"
    [summary] = whole.compactions
    assert summary.message_key == "again" and summary.summary == "We looked around."
    assert summary.meta["newTokenCount"] == 90 and whole.context_start == "after"
    assert whole.ignored_records["system:rewind"] == 1
