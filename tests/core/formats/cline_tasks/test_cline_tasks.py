"""The editor extensions' task folders (Cline, Roo Code, Kilo Code), built from the messages
the real Cline CLI 3.0.65 wrote (``tests/corpus/cline``: the same stored-message shape) and
placed where each extension keeps them: found per editor and OS, prompts, calls paired with
results, model, times and cwd; the older XML-ish tool text paired too; a rewritten folder
re-synced adds only its new message (S1); damaged files named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import new_store

from explorer.app.importing.agent_homes import Environment, editor_tasks
from explorer.app.importing.sources import find_sources
from explorer.app.importing.sync import sync_sources
from explorer.formats.base import FormatError
from explorer.formats.cline_tasks import read, sniff
from explorer.formats.registry import detect
from tests.corpus import CORPUS, manifests

SESSIONS = CORPUS / "cline" / "home" / ".cline" / "data" / "sessions"
PROMPT = manifests()["cline"]["prompts"][1]
EXTENSIONS = {"cline": "saoudrizwan.claude-dev", "roo-code": "rooveterinaryinc.roo-cline",
              "kilo-code": "kilocode.kilo-code"}
TASK = "1796427784069"


def recorded() -> list[dict[str, Any]]:
    files = sorted(SESSIONS.glob("*/*.messages.json"))
    return list(json.loads(files[1].read_text())["messages"])


def write_task(tasks: Path, messages: list[dict[str, Any]], task: str = TASK) -> Path:
    """A task folder as the extension writes it: API history, timeline, metadata, index."""
    folder = tasks / task
    folder.mkdir(parents=True)
    api = [{k: v for k, v in m.items() if k != "modelInfo"} for m in messages]
    for m in api:
        if m["role"] == "user" and m is api[0]:
            m["content"] = [{"type": "text", "text": f"<task>\n{PROMPT}\n</task>"},
                            {"type": "text", "text": "<environment_details>\n# Current Working "
                             "Directory (/home/ana/app) Files\nnotes.txt\n</environment_details>"}]
    (folder / "api_conversation_history.json").write_text(json.dumps(api))
    ui = [{"ts": messages[0]["ts"] - 5, "type": "say", "say": "task", "text": PROMPT}]
    ui += [{"ts": m["ts"] - 1, "type": "say", "say": "api_req_started",
            "text": json.dumps({"tokensIn": 10, "tokensOut": 5, "cost": 0.25})}
           for m in messages if m["role"] == "assistant"]
    (folder / "ui_messages.json").write_text(json.dumps(ui))
    (folder / "task_metadata.json").write_text(json.dumps(
        {"files_in_context": [], "model_usage": [
            {"ts": messages[0]["ts"], "model_id": "claude-sonnet-4", "model_provider_id": "x",
             "mode": "act"}]}))
    return folder


def test_S1_each_extension_is_found_in_each_editor_and_os(tmp_path: Path) -> None:
    home = tmp_path / "home"
    editors = {"cline": "Code", "roo-code": "Cursor", "kilo-code": "Windsurf"}
    for tool, ext in EXTENSIONS.items():
        base = home / ".config" / editors[tool] / "User" / "globalStorage" / ext / "tasks"
        write_task(base, recorded())
    found = {f.tool: f for f in find_sources(Environment(home), set(EXTENSIONS))}
    for tool in EXTENSIONS:
        assert found[tool].sessions == 1 and found[tool].problems == []
        assert [u.fmt for u in found[tool].units] == ["cline_tasks"]
        assert editors[tool] in found[tool].path.parts
    mac = editor_tasks(Environment(Path("/Users/ana"), {}, "darwin"), EXTENSIONS["roo-code"])
    assert mac[0] == Path("/Users/ana/Library/Application Support/Code/User/globalStorage/"
                          "rooveterinaryinc.roo-cline/tasks")
    win = editor_tasks(Environment(Path("C:/Users/ana"), {"APPDATA": "C:/R"}, "win32"),
                       EXTENSIONS["kilo-code"])
    assert Path("C:/R/VSCodium/User/globalStorage/kilocode.kilo-code/tasks") in win
    assert len(win) == 5


def test_prompts_calls_models_times_and_cwd(tmp_path: Path) -> None:
    folder = write_task(tmp_path / "tasks", recorded())
    assert sniff(folder) and detect(folder) is not None and not sniff(folder / "ui_messages.json")
    [conv] = read(folder)
    assert [m.text for m in conv.messages if m.is_prompt] == [PROMPT]
    assert conv.meta["cwd"] == "/home/ana/app" and conv.source_id == TASK
    calls = [p for m in conv.messages for p in m.tool_uses()]
    results = [p for m in conv.messages for p in m.tool_results()]
    assert len(calls) == 2 and [r.tool_use_id for r in results] == [c.tool_use_id for c in calls]
    answers = [m for m in conv.messages if m.role == "assistant"]
    assert {m.model for m in answers} == {"claude-sonnet-4"}
    assert [m.created_at for m in conv.messages] == [r["ts"] / 1000 for r in recorded()]
    assert answers[0].source_meta["cost"] == 0.25 and answers[0].usage is not None
    assert conv.created_at == pytest.approx((recorded()[0]["ts"] - 5) / 1000)


def test_older_xml_tool_text_is_paired(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "ts": 1700000000000, "content": [{"type": "text",
                                                           "text": "<task>\nList it\n</task>"}]},
        {"role": "assistant", "ts": 1700000001000, "content": [{"type": "text", "text":
            "Listing.\n<execute_command>\n<command>ls -1</command>\n"
            "<requires_approval>false</requires_approval>\n</execute_command>"}]},
        {"role": "user", "ts": 1700000002000, "content": [
            {"type": "text", "text": "[execute_command for 'ls -1'] Result:"},
            {"type": "text", "text": "notes.txt"}]},
        {"role": "assistant", "ts": 1700000003000, "content": "Done."},
    ]
    folder = write_task(tmp_path / "tasks", messages, "1700000000000")
    (folder / "api_conversation_history.json").write_text(json.dumps(messages))
    [conv] = read(folder)
    [call] = [p for m in conv.messages for p in m.tool_uses()]
    assert call.tool_name == "execute_command"
    assert json.loads(call.text) == {"command": "ls -1", "requires_approval": "false"}
    [result] = [p for m in conv.messages for p in m.tool_results()]
    assert result.tool_use_id == call.tool_use_id
    said = [m.text for m in conv.messages if m.role == "user"]
    assert said == ["List it", "notes.txt"]


def test_S1_a_rewritten_task_adds_only_its_new_message(tmp_path: Path) -> None:
    home = tmp_path / "home"
    tasks = editor_tasks(Environment(home), EXTENSIONS["cline"])[0]
    folder = write_task(tasks, recorded())
    with new_store(tmp_path) as store:
        first = sync_sources(store, Environment(home), {"cline"})
        assert first.errors == [] and first.added_messages == 6
        history = folder / "api_conversation_history.json"
        api = json.loads(history.read_text())
        api.append({"role": "user", "ts": api[-1]["ts"] + 1000,
                    "content": [{"type": "text", "text": "<feedback>\nAnd now?\n</feedback>"}]})
        history.write_text(json.dumps(api))
        again = sync_sources(store, Environment(home), {"cline"})
        assert again.errors == [] and again.added_messages == 1
        assert sync_sources(store, Environment(home), {"cline"}).unchanged == 1


def test_damaged_files_are_named(tmp_path: Path) -> None:
    folder = write_task(tmp_path / "tasks", recorded())
    (folder / "ui_messages.json").write_text("[{")
    [conv] = read(folder)
    assert any("ui_messages.json" in n and "not valid JSON" in n for n in conv.notes)
    assert len(conv.messages) == 6
    (folder / "api_conversation_history.json").write_text('[{"role": "user", "content": [')
    with pytest.raises(FormatError, match=r"api_conversation_history\.json.*not valid JSON"):
        list(read(folder))
