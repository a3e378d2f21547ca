"""Gemini CLI 0.61 chats: the user record it writes for each tool response is the turn's tool
output, not a prompt, and its id-less bookkeeping lines are read without a note (P1, V1).

The fixture has the recorded shape (chatRecordingService.ts): a header line, ``$set``
patches after every record, a ``gemini`` record written again once its call finished
(``toolCalls[].result`` holding the ``functionResponse``), then a ``user`` record holding
only that ``functionResponse`` (once with an empty text part beside it)."""

from __future__ import annotations

from pathlib import Path

from helpers import new_store

from explorer.app.graph.turn_text import turn_json, turn_view
from explorer.app.importing.run import import_paths
from explorer.formats import gemini_cli
from explorer.formats.tailing import Cursor

CHAT = Path(__file__).parent / "fixtures" / "session-2026-11-30T10-15-7f3e2a10.jsonl"


def test_P1_a_tool_response_record_folds_into_its_turn_as_the_results_it_is() -> None:
    conv = next(iter(gemini_cli.read(CHAT)))
    assert [m.role for m in conv.messages if m.role == "user"] == ["user", "user"]
    assert all(m.parts for m in conv.messages)  # no empty message
    results = [p for m in conv.messages for p in m.parts if p.kind == "tool_result"]
    calls = [p for m in conv.messages for p in m.parts if p.kind == "tool_use"]
    assert [p.tool_use_id for p in results] == [p.tool_use_id for p in calls]  # once each
    assert len(calls) == 2
    assert not any("without an id" in n for n in conv.notes)
    assert "<record without id>" not in conv.ignored_records or not conv.notes


def test_V1_every_turn_of_the_chat_opens_at_a_prompt(tmp_path: Path) -> None:
    with new_store(tmp_path) as store:
        report = import_paths(store, [CHAT])
        assert report.errors == []
        assert not any("without an id" in n for c in report.conversations for n in c.notes)
        nodes = turn_json(turn_view(store, report.conversations[0].conversation_id))["nodes"]
    assert [n.get("prompt") for n in nodes] == ["What is in this project?", "Thanks"]
    assert nodes[0]["tool_calls"] == 2


def test_a_tail_read_folds_a_response_whose_call_came_in_an_earlier_read(
    tmp_path: Path
) -> None:
    lines = CHAT.read_bytes().splitlines(keepends=True)
    live = tmp_path / "live.jsonl"
    live.write_bytes(b"".join(lines[:8]))  # up to the rewritten call record
    first = gemini_cli.read_tail(live, None)
    live.write_bytes(b"".join(lines))
    second = gemini_cli.read_tail(live, Cursor.from_json(first.cursor.to_json()))
    new = second.conversation.messages
    assert new and all(m.role != "tool" or m.id.endswith(":results") for m in new)
    assert [m.role for m in new if m.role == "user"] == ["user"]  # "Thanks" only


def test_id_less_bookkeeping_lines_are_read_without_a_note(tmp_path: Path) -> None:
    lines = CHAT.read_text().splitlines()
    # the header again (Gemini CLI writes it when it moves a .json chat to .jsonl), a rewind
    chat = tmp_path / "session-x.jsonl"
    chat.write_text("\n".join([*lines[:4], lines[0], '{"$rewindTo":"nowhere"}', *lines[4:]]))
    conv = next(iter(gemini_cli.read(chat)))
    assert conv.notes == [] and conv.source_id == "7f3e2a10-5c4b-4e8a-9d21-0b6c8f4a3e57"
    damaged = tmp_path / "session-y.jsonl"
    damaged.write_text("\n".join([*lines, '{"type":"user","content":[{"text":"lost"}]}']))
    assert any("without an id" in n for n in next(iter(gemini_cli.read(damaged))).notes)
