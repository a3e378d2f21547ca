"""Continue CLI sessions as ``cn`` 1.5.47 wrote them (``tests/corpus/continue_cli``): every
prompt, answer, tool call with its result, model, time and working folder; a re-sync after
``cn --resume`` appended a turn adds only that turn (S1); damaged files and items named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import new_store

from explorer.app.importing.agent_homes import Environment, continue_sessions
from explorer.app.importing.follow import followable, poll
from explorer.app.importing.sources import find_sources
from explorer.app.importing.sync import sync_sources
from explorer.cli.main import main
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.continue_cli import read, sniff
from explorer.formats.registry import detect
from explorer.store.reads_all import conversation_messages
from tests.corpus import CORPUS, manifests

RECORDED = CORPUS / "continue_cli" / "home"
SESSIONS = RECORDED / ".continue" / "sessions"
PROMPTS: list[str] = manifests()["continue_cli"]["prompts"]
WORK = "/tmp/convo-corpus/continue_cli/work"


def recorded() -> dict[str, ImportedConversation]:
    """The two recorded sessions, by their first prompt."""
    out = {}
    for f in sorted(SESSIONS.glob("*-*.json")):
        [conv] = read(f)
        out[conv.messages[0].text] = conv
    return out


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_every_prompt_answer_call_and_result_is_read() -> None:
    convs = recorded()
    assert set(convs) == {PROMPTS[0], PROMPTS[3]}
    first = convs[PROMPTS[0]]
    assert all(sniff(f) == (f.name != "sessions.json") for f in SESSIONS.iterdir())
    assert detect(SESSIONS / f"{first.source_id}.json") is not None
    msgs = first.messages
    assert [m.text for m in msgs if m.role == "user"] == PROMPTS[:3]
    assert first.title == PROMPTS[0] and first.meta["cwd"] == WORK
    assert all(m.parent_id == (msgs[i - 1].id if i else None) for i, m in enumerate(msgs))
    assert all(m.model == "fake-model" for m in msgs if m.role == "assistant")
    assert msgs[1].text.startswith("Answer 1 to: Say hello")
    assert msgs[1].usage is not None and msgs[1].usage.input_tokens == 1234
    calls = [p for m in msgs for p in m.tool_uses()]
    assert [c.tool_name for c in calls] == ["Bash", "Read", "Write", "Read", "Edit"]
    assert json.loads(calls[0].text) == {"command": "ls -1"}
    results = {p.tool_use_id: p for m in msgs if m.role == "tool" for p in m.tool_results()}
    assert set(results) == {c.tool_use_id for c in calls}
    assert results[calls[0].tool_use_id].text == "notes.txt\n"
    assert "first line of the notes" in results[calls[1].tool_use_id].text
    assert results[calls[4].tool_use_id].text.startswith("Successfully edited")
    for n, m in enumerate(msgs):  # each call is answered by the tool message right after it
        if m.tool_uses():
            assert msgs[n + 1].role == "tool" and msgs[n + 1].parent_id == m.id
    index = {e["sessionId"]: e for e in load(SESSIONS / "sessions.json")}
    created = int(index[str(first.source_id)]["dateCreated"]) / 1000
    assert first.created_at == created and msgs[0].created_at == created
    assert first.notes == [] and not first.incomplete


def test_S1_a_resumed_session_adds_only_the_new_turn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(RECORDED, home)
    sessions = continue_sessions(Environment(home))
    [session] = [f for f in sessions.glob("*-*.json")
                 if load(f)["history"][0]["message"]["content"] == PROMPTS[0]]
    whole = load(session)
    cut = next(n for n, item in enumerate(whole["history"])
               if item["message"]["content"] == PROMPTS[2])
    session.write_text(json.dumps({**whole, "history": whole["history"][:cut]}))  # before resume
    env = Environment(home)
    with new_store(tmp_path) as store:
        first = sync_sources(store, env, {"continue"})
        assert first.errors == [] and first.added_messages == 8 + 4
        conv = next(c for c in store.conversations() if c.source_id == whole["sessionId"])
        followed = followable(store, conv.id)
        assert followed.agent == "Continue CLI"
        session.write_text(json.dumps(whole, indent=2))  # cn --resume wrote it whole again
        assert poll(store, followed).added == 8
        again = sync_sources(store, env, {"continue"})
        assert again.added_messages == 0 and again.errors == []
        texts = [m.text for m in conversation_messages(store.reader, conv.id)]
        assert texts.count(PROMPTS[2]) == 1 and len(texts) == 16


def test_thoughts_tool_messages_images_and_cancelled_calls(tmp_path: Path) -> None:
    history = [
        {"message": {"role": "user", "content": [
            {"type": "text", "text": "What is in the picture?"},
            {"type": "imageUrl", "imageUrl": {"url": "data:image/png;base64,iVBORw0KGgo="}}]},
         "contextItems": [{"name": "notes.txt", "content": "first line"}]},
        {"message": {"role": "thinking", "content": "Look closely.", "signature": "s1"}},
        {"message": {"role": "assistant", "content": "Checking.", "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "Bash",
                                                         "arguments": "{\"command\":\"ls\"}"}}],
            "usage": {"model": "m1"}},
         "toolCallStates": [{"toolCallId": "c1", "status": "canceled", "output": []}]},
        {"message": {"role": "tool", "content": "late result", "toolCallId": "c2"}},
        {"message": {"role": "assistant", "content": "Summary so far."},
         "conversationSummary": "Summary so far."},
    ]
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"sessionId": "s", "title": "Pictures", "history": history}))
    [conv] = read(path)
    user, answer, cancelled, late, summary = conv.messages
    assert conv.title == "Pictures"
    assert [p.kind for p in user.parts] == ["text", "image"] and user.parts[1].data
    assert user.source_meta["context_items"][0]["name"] == "notes.txt"
    assert [p.kind for p in answer.parts] == ["thinking", "text", "tool_use"]
    assert answer.parts[0].meta == {"signature": "s1"} and answer.model == "m1"
    [result] = cancelled.tool_results()
    assert result.is_error and result.text == "[canceled]" and result.tool_use_id == "c1"
    assert late.role == "tool" and late.tool_results()[0].tool_use_id == "c2"
    assert conv.context_start == summary.id


def test_damaged_files_and_items_are_named_and_skipped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(RECORDED, home)
    sessions = continue_sessions(Environment(home))
    broken = sessions / "0badf00d-0000-4000-8000-000000000000.json"
    broken.write_text('{"sessionId": "0badf00d", "history": [')
    with pytest.raises(FormatError, match=broken.name):
        list(read(broken))
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"sessionId": "odd", "history": [
        "not an item", {"message": {"role": "oracle", "content": "?"}},
        {"message": {"role": "user", "content": "Still read."}}]}))
    [conv] = read(odd)
    assert [m.text for m in conv.messages] == ["Still read."]
    assert any("item 0" in n and "no message" in n for n in conv.notes)
    assert any("item 1" in n and "'oracle'" in n for n in conv.notes)
    assert conv.ignored_records["message:oracle"] == 1
    with new_store(tmp_path) as store:
        report = sync_sources(store, Environment(home), {"continue"})
        assert any(broken.name in e for e in report.errors)
        assert report.added_messages == 16 + 4  # the readable sessions, whole


def test_S1_convo_sources_json_lists_continue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(RECORDED / ".continue", moved)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CONTINUE_GLOBAL_DIR", str(moved))
    assert main(["sources", "--json"]) == 0
    rows = {r["tool"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["continue"]["sessions"] == 2
    assert rows["continue"]["path"] == str(moved / "sessions")
    [found] = find_sources(Environment(tmp_path, {"CONTINUE_GLOBAL_DIR": str(moved)}),
                           {"continue"})
    assert {u.path.name for u in found.units} == {f.name for f in SESSIONS.glob("*-*.json")}
