"""claude.ai exports: linear chats with blocks and attachments, damaged arrays, fuzz."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from core.formats.pi.test_pi_fuzz import mutate_value
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.formats import claude_ai
from explorer.formats.base import FormatError
from explorer.tree.paths import message_path

EXPORT = Path("exports") / "claude_ai" / "conversations.json"

CHAT = {
    "uuid": "conv-1", "name": "Fixing a test", "created_at": "2024-03-01T10:00:00.000000Z",
    "updated_at": "2024-03-01T10:05:00Z",
    "chat_messages": [
        {"uuid": "h1", "sender": "human", "text": "why does it fail?", "content": [
            {"type": "text", "text": "why does it fail?"}],
         "created_at": "2024-03-01T10:00:01Z",
         "attachments": [{"file_name": "log.txt", "extracted_content": "Traceback ..."}],
         "files": [{"file_name": "shot.png"}]},
        {"uuid": "a1", "sender": "assistant", "text": "", "content": [
            {"type": "thinking", "thinking": "look at the log"},
            {"type": "tool_use", "name": "web_search", "input": {"query": "error"}},
            {"type": "tool_result", "name": "web_search", "content": [{"type": "text",
                                                                       "text": "a page"}]},
            {"type": "text", "text": "Because of X."},
            {"type": "flag"}],
         "created_at": "2024-03-01T10:00:09Z"},
        {"uuid": "h2", "sender": "human", "text": "thanks", "content": [],
         "created_at": "2024-03-01T10:01:00Z"},
    ],
}
SECOND = {"uuid": "conv-2", "name": "", "created_at": "2024-03-02T00:00:00Z",
          "chat_messages": [{"uuid": "x1", "sender": "human", "text": "hi"},
                            {"uuid": "x2", "sender": "assistant", "text": "hello",
                             "content": [{"type": "tool_use", "id": "t1", "name": "calc",
                                          "input": {}}]}]}


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "conversations.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_linear_chat_with_blocks_and_attachments(tmp_path: Path) -> None:
    [conv, second] = list(claude_ai.read(_write(tmp_path, [CHAT, SECOND])))
    assert conv.title == "Fixing a test" and conv.source_id == "conv-1"
    path = message_path({m.id: m for m in conv.messages}, conv.tip)
    assert [m.id for m in path] == ["h1", "a1", "h2"] == [m.id for m in conv.messages]
    h1, a1, h2 = path
    assert [p.kind for p in h1.parts] == ["text", "text"]
    assert h1.parts[1].text == "[log.txt]\nTraceback ..."
    assert h1.source_meta["files"] == ["shot.png"]
    assert [p.kind for p in a1.parts] == ["thinking", "tool_use", "tool_result", "text"]
    # A tool result without an id answers the open call before it (P1 stays clean).
    assert a1.parts[1].tool_use_id == a1.parts[2].tool_use_id is not None
    assert a1.parts[2].text == "a page"
    assert h2.text == "thanks"  # empty content falls back to the text field
    assert conv.ignored_records == {"block:flag": 1}
    assert conv.incomplete is False and conv.created_at is not None
    assert second.title == "hi"  # nameless: the first prompt, as the other importers do
    assert second.incomplete is True  # ends on a tool call that never returned


def test_damaged_elements_are_noted_and_the_rest_kept(tmp_path: Path) -> None:
    bad_sender = {**SECOND, "chat_messages": [{"uuid": "q", "sender": "robot", "text": "?"},
                                              "junk", {"uuid": "r", "sender": "human",
                                                       "attachments": 5, "files": "x"}]}
    convs = list(claude_ai.read(_write(tmp_path, [CHAT, 42, {"no": "messages"}, bad_sender])))
    assert [c.source_id for c in convs] == ["conv-1", "conv-2"]
    assert any("#2" in n and "not a conversation" in n for n in convs[1].notes)
    assert convs[1].ignored_records == {"sender:robot": 1, "sender:None": 1}
    assert [m.id for m in convs[1].messages] == ["r"]


def test_duplicate_message_ids_keep_the_first(tmp_path: Path) -> None:
    dup = {**SECOND, "chat_messages": [{"uuid": "x1", "sender": "human", "text": "a"},
                                       {"uuid": "x1", "sender": "assistant", "text": "b"}]}
    [conv] = list(claude_ai.read(_write(tmp_path, [dup])))
    assert [m.text for m in conv.messages] == ["a"]
    assert any("duplicate" in n for n in conv.notes)


def test_truncated_file_keeps_what_came_before(tmp_path: Path) -> None:
    text = json.dumps([CHAT, SECOND])
    convs = list(claude_ai.read(_write(tmp_path, text[: text.index('"conv-2"') + 20])))
    assert [c.source_id for c in convs] == ["conv-1"]
    assert any("#2" in n for n in convs[0].notes)
    with pytest.raises(FormatError):
        list(claude_ai.read(_write(tmp_path, "[ {\"uuid\": ")))


def test_a_single_object_is_one_conversation(tmp_path: Path) -> None:
    [conv] = list(claude_ai.read(_write(tmp_path, SECOND)))
    assert [m.text for m in conv.messages] == ["hi", "hello"]


def test_the_corpus_export_reads_blocks_names_and_an_empty_chat(corpus_dir: Path) -> None:
    tides, nameless, draft = claude_ai.read(corpus_dir / EXPORT)
    assert [c.title for c in (tides, nameless, draft)] == [
        "Tides in Brest", "Qual é a capital da Austrália?", "Untitled draft"]
    assert [len(c.messages) for c in (tides, nameless, draft)] == [3, 2, 0]
    assert draft.tip is None and draft.notes == []
    ask, answer, thanks = message_path({m.id: m for m in tides.messages}, tides.tip)
    assert [p.kind for p in ask.parts] == ["text", "text"]
    assert ask.parts[1].text == "[plan.txt]\nWalk to the Pointe Saint-Mathieu at low tide."
    assert ask.source_meta["files"] == ["map.png"]
    assert [p.kind for p in answer.parts] == ["thinking", "tool_use", "tool_result", "text"]
    call, result = answer.parts[1:3]
    assert call.tool_name == "web_search" and json.loads(call.text) == {
        "query": "tide table Brest 12 October"}
    assert result.tool_use_id == call.tool_use_id == "b6a0d5f2-0002:1"  # no id: the open call
    assert result.text.startswith("High tide 06:41") and result.is_error is False
    assert thanks.text == "merci !" and thanks.created_at == 1728669820.5
    assert tides.created_at == 1728669731.412947  # microseconds kept
    assert not tides.incomplete and not tides.ignored_records


def test_sniff(corpus_dir: Path, tmp_path: Path) -> None:
    assert claude_ai.sniff(_write(tmp_path, [CHAT]))
    assert claude_ai.sniff(corpus_dir / EXPORT)
    others = [p for p in sorted((corpus_dir / "exports").rglob("*"))
              if p.is_file() and p.parent.name != "claude_ai"]
    others += sorted((corpus_dir / "codex").rglob("*.jsonl"))
    assert len(others) >= 9
    for path in others:
        assert not claude_ai.sniff(path), path
    text = tmp_path / "t.txt"
    text.write_text("chat_messages uuid")
    assert not claude_ai.sniff(text)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_exports_read_or_raise_format_error(data: st.DataObject, tmp_path: Path) -> None:
    export: Any = [CHAT, SECOND]
    for _ in range(data.draw(st.integers(1, 5))):
        export = mutate_value(data, export)
    text = json.dumps(export)
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]
    try:
        convs = list(claude_ai.read(_write(tmp_path, text)))
    except FormatError:
        return
    for conv in convs:
        assert conv.tip is None or conv.tip in {m.id for m in conv.messages}


def test_claude_ai_nameless_conversations_are_titled_by_their_first_prompt(
    tmp_path: Path,
) -> None:
    def chat(uuid: str, name: str, prompt: str) -> dict[str, object]:
        return {"uuid": uuid, "name": name, "created_at": "2025-01-02T00:00:00Z",
                "chat_messages": [
                    {"uuid": f"{uuid}-h", "sender": "human", "text": prompt, "content": []},
                    {"uuid": f"{uuid}-a", "sender": "assistant", "text": "answer", "content": []},
                ]}

    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([chat("n1", "", "How do tides work?\nAnd why twice a day?"),
                                chat("n2", "  ", "Plan a trip to Bergen"),
                                chat("n3", "Named one", "ignored for the title")]))
    assert [c.title for c in claude_ai.read(path)] == [
        "How do tides work?", "Plan a trip to Bergen", "Named one"]


def test_claude_ai_conversations_without_messages_are_created(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([
        {"uuid": "e1", "name": "Planned trip", "chat_messages": []},
        {"uuid": "e2", "name": "", "chat_messages": None},
        {"uuid": "e3", "name": "No message list at all"},
    ]))
    convs = list(claude_ai.read(path))
    assert [(c.source_id, c.title, len(c.messages)) for c in convs] == [
        ("e1", "Planned trip", 0), ("e2", "Untitled", 0), ("e3", "No message list at all", 0)]
    assert any("no chat_messages; created it empty" in n for n in convs[1].notes)
