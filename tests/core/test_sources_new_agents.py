"""`convo sources --json` names Copilot CLI, Cursor (the CLI and the editor) and Goose, each
where the tool keeps its sessions, honouring its own overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.app.importing import agent_homes as homes
from explorer.app.importing.agent_homes import Environment
from explorer.cli.main import main


def test_sources_json_lists_the_new_tools(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    for name in ("COPILOT_HOME", "GOOSE_PATH_ROOT", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    assert main(["sources", "--json"]) == 0
    rows = {r["tool"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["copilot"]["path"] == str(tmp_path / ".copilot" / "session-state")
    assert rows["cursor"]["path"] == str(tmp_path / ".cursor" / "chats")
    assert rows["cursor-editor"]["path"] == str(tmp_path / ".config" / "Cursor" / "User")
    assert rows["goose"]["path"] == str(tmp_path / ".local" / "share" / "goose" / "sessions")


def test_each_new_tool_honours_its_overrides() -> None:
    home = Path("/h")
    assert homes.copilot_sessions(Environment(home, {"COPILOT_HOME": "/c"})) == \
        Path("/c/session-state")
    assert homes.goose_sessions(Environment(home, {"GOOSE_PATH_ROOT": "/g"})) == \
        Path("/g/data/sessions")
    assert homes.goose_sessions(Environment(home, {"APPDATA": "/a"}, "win32")) == \
        Path("/a/Block/goose/data/sessions")
    assert homes.cursor_user(Environment(home, {}, "darwin")) == \
        home / "Library" / "Application Support" / "Cursor" / "User"
    assert homes.cursor_user(Environment(home, {"APPDATA": "/a"}, "win32")) == \
        Path("/a/Cursor/User")
