"""Cline CLI sessions as ``cline`` 3.0.65 wrote them (``tests/corpus/cline``): prompts without
Cline's wrapper, answers, run_commands calls with their output, model, times and working
folder; a re-sync after the file is rewritten with one more message adds only it (S1);
damaged files named; the Kilo CLI recording read as OpenCode's database."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import new_store

from explorer.app.importing.agent_homes import Environment, cline_sessions, kilo_data
from explorer.app.importing.follow import followable
from explorer.app.importing.sources import find_sources
from explorer.app.importing.sync import sync_sources
from explorer.cli.main import main
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.cline import read, sniff
from explorer.formats.registry import detect
from explorer.store.reads_all import conversation_messages
from tests.corpus import CORPUS, manifests

RECORDED = CORPUS / "cline" / "home"
SESSIONS = RECORDED / ".cline" / "data" / "sessions"
PROMPTS: list[str] = manifests()["cline"]["prompts"]
WORK = "/tmp/convo-corpus/cline/work"


def sessions() -> list[ImportedConversation]:
    return [c for f in sorted(SESSIONS.glob("*/*.messages.json")) for c in read(f)]


def test_each_session_is_detected_and_read_whole() -> None:
    files = sorted(SESSIONS.glob("*/*.messages.json"))
    assert len(files) == 2 and all(sniff(f) and detect(f) is not None for f in files)
    assert all(detect(f) is not None and detect(f).FORMAT == "cline" for f in files)  # type: ignore[union-attr]
    manifest = next(SESSIONS.glob("*/*[0-9a-z].json"))
    assert not sniff(manifest)  # the manifest alone holds no messages
    hello, look = sessions()
    assert [m.text for m in hello.messages if m.is_prompt] == [PROMPTS[0]]
    assert [m.text for m in look.messages if m.is_prompt] == [PROMPTS[1]]
    assert hello.messages[0].source_meta["context"] == ['<user_input mode="act">']
    assert hello.title == "Say hello and tell me what this folder is for."
    assert hello.messages[-1].text.startswith("Answer ") and hello.notes == []


def test_calls_results_model_times_and_cwd() -> None:
    _hello, look = sessions()
    roles = [m.role for m in look.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    calls = [p for m in look.messages for p in m.tool_uses()]
    results = [p for m in look.messages for p in m.tool_results()]
    assert [json.loads(c.text) for c in calls] == [{"commands": ["ls -1"]},
                                                    {"commands": ["cat notes.txt"]}]
    assert [c.tool_name for c in calls] == ["run_commands", "run_commands"]
    assert [r.tool_use_id for r in results] == [c.tool_use_id for c in calls]
    assert results[0].text == "notes.txt\n" and results[1].text.startswith("first line")
    assert not any(r.is_error for r in results)
    raw = json.loads(next(SESSIONS.glob(f"{look.source_id}/*.messages.json")).read_text())
    assert [m.created_at for m in look.messages] == [r["ts"] / 1000 for r in raw["messages"]]
    assert [m.id for m in look.messages] == [r["id"] for r in raw["messages"]]
    answers = [m for m in look.messages if m.role == "assistant"]
    assert {m.model for m in answers} == {"fake-model"}
    assert answers[0].usage is not None and answers[0].usage.input_tokens == 1234
    assert look.meta["cwd"] == WORK and look.meta["provider"] == "openai-compatible"
    assert look.meta["version"] == "3.0.65" and look.created_at is not None


def _copy(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(RECORDED, home)
    return home


def test_S1_a_rewritten_session_adds_only_its_new_message(tmp_path: Path) -> None:
    home = _copy(tmp_path)
    env = Environment(home)
    with new_store(tmp_path) as store:
        first = sync_sources(store, env, {"cline"})
        assert first.errors == [] and first.added_messages == 2 + 6
        path = next(f for f in cline_sessions(env).glob("*/*.messages.json")
                    if len(json.loads(f.read_text())["messages"]) == 2)
        data = json.loads(path.read_text())
        data["messages"].append({"id": "later-1", "role": "user", "ts": 1796427790000,
                                 "content": [{"type": "text", "text": "One more thing."}]})
        path.write_text(json.dumps(data, indent=2))  # Cline writes the whole file again
        again = sync_sources(store, env, {"cline"})
        assert again.errors == [] and again.added_messages == 1 and again.reread == 1
        said = [m.text for c in store.conversations()
                for m in conversation_messages(store.reader, c.id) if m.role == "user"]
        assert said.count("One more thing.") == 1
        followed = followable(store, store.conversations()[0].id)  # live follow re-reads it
        assert followed.agent == "Cline" and followed.unit.fmt == "cline"


def test_damaged_files_are_named(tmp_path: Path) -> None:
    home = _copy(tmp_path)
    files = sorted(cline_sessions(Environment(home)).glob("*/*.messages.json"))
    files[0].write_text('{"version": 1, "sessionId": "x", "agent": "lead", "updated_at": "", '
                        '"messages": [')
    with pytest.raises(FormatError, match=files[0].name + ".*not valid JSON"):
        list(read(files[0]))
    manifest = files[1].with_name(files[1].name.removesuffix(".messages.json") + ".json")
    manifest.write_text("{broken")
    data = json.loads(files[1].read_text())
    data["messages"].insert(1, "not a message")
    files[1].write_text(json.dumps(data))
    [conv] = read(files[1])
    assert any(manifest.name in n and "not valid JSON" in n for n in conv.notes)
    assert "message 1: not a JSON object; skipped" in conv.notes
    assert "cwd" not in conv.meta and len(conv.messages) == 6
    with new_store(tmp_path) as store:
        report = sync_sources(store, Environment(home), {"cline"})
        assert any(files[0].name in e for e in report.errors) and report.added_messages == 6


def test_S1_places_and_convo_sources_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    moved = tmp_path / "state"
    shutil.copytree(RECORDED / ".cline" / "data", moved)
    env = Environment(tmp_path / "home", {"CLINE_DATA_DIR": str(moved)})
    assert cline_sessions(env) == moved / "sessions"
    assert cline_sessions(Environment(Path("/h"), {"CLINE_DIR": "/c"})) == Path("/c/data/sessions")
    assert kilo_data(Environment(Path("/h"), {"XDG_DATA_HOME": "/d"})) == Path("/d/kilo")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLINE_DATA_DIR", str(moved))
    assert main(["sources", "--json"]) == 0
    rows = {r["tool"]: r for r in json.loads(capsys.readouterr().out)}
    assert {"cline", "roo-code", "kilo-code", "kilo-cli"} <= set(rows)
    assert rows["cline"]["sessions"] == 2 and rows["cline"]["path"] == str(moved / "sessions")
    assert not rows["roo-code"]["exists"] and not rows["kilo-cli"]["exists"]


def test_kilo_cli_is_read_as_opencode(tmp_path: Path) -> None:
    home = CORPUS / "kilo_code" / "home"
    [found] = find_sources(Environment(home), {"kilo-cli"})
    assert found.sessions == 2 and [u.path.name for u in found.units] == ["kilo.db"]
    with new_store(tmp_path) as store:
        report = sync_sources(store, Environment(home), {"kilo-cli"})
        assert report.errors == []
        convs = store.conversations()
        assert len(convs) == 2
        messages = [m for c in convs for m in conversation_messages(store.reader, c.id)]
        said = {m.text for m in messages if m.role == "user"}
        assert set(manifests()["kilo_code"]["prompts"]) <= said
        names = sorted(p.tool_name or "" for m in messages for p in m.tool_uses())
        assert names == ["bash", "bash", "read"]
