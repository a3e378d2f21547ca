"""Finding each tool's sessions in a fake home, with each tool's own overrides and per-OS rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agent_home import fake_home

from explorer.app.importing import agent_homes as homes
from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sources import TOOL_NAMES, find_sources
from explorer.formats.registry import IMPORTERS


def by_tool(env: Environment) -> dict[str, object]:
    return {f.tool: f for f in find_sources(env)}


def test_every_tool_is_found_with_its_sessions(tmp_path: Path) -> None:
    home = fake_home(tmp_path / "home")
    found = {f.tool: f for f in find_sources(Environment(home))}
    counts = {t: f.sessions for t, f in found.items()}
    assert counts == {**dict.fromkeys(TOOL_NAMES, 0), "claude-code": 2, "pi": 2, "codex": 2,
                      "gemini-cli": 1, "opencode": 2, "llm": 1}  # none of the others
    assert not found["oh-my-pi"].exists and found["codex"].exists
    codex = found["codex"]
    assert codex.size == sum(u.path.stat().st_size for u in codex.units)
    assert codex.newest == pytest.approx(max(u.path.stat().st_mtime for u in codex.units))
    assert [u.path.name for u in found["opencode"].units] == ["opencode.db"]  # two sessions
    fmts = {u.fmt for f in found.values() for u in f.units}
    assert fmts == {"claude_code", "pi", "codex", "gemini_cli", "opencode", "llm"}
    assert fmts <= set(IMPORTERS)  # each names an importer package a sync can load
    as_json = found["gemini-cli"].to_dict()
    assert as_json["sessions"] == 1 and as_json["newest"].endswith("Z")


def test_environment_overrides_win(tmp_path: Path) -> None:
    home = fake_home(tmp_path / "home")
    moved = tmp_path / "elsewhere"
    os.rename(home / ".codex", moved)
    env = Environment(home, {"CODEX_HOME": str(moved), "CLAUDE_CONFIG_DIR": str(tmp_path / "no"),
                             "LLM_USER_PATH": str(home / ".config" / "io.datasette.llm")})
    found = {f.tool: f for f in find_sources(env)}
    assert found["codex"].sessions == 2 and found["codex"].path == moved / "sessions"
    assert not found["claude-code"].exists
    assert found["llm"].sessions == 1


def test_places_follow_each_operating_system(tmp_path: Path) -> None:
    home = Path("/Users/ana")
    mac = Environment(home, {}, "darwin")
    assert homes.llm_logs(mac) == home / "Library/Application Support/io.datasette.llm/logs.db"
    win = Environment(Path("C:/Users/ana"), {"APPDATA": "C:/Users/ana/AppData/Roaming"}, "win32")
    assert homes.llm_logs(win) == Path("C:/Users/ana/AppData/Roaming/io.datasette.llm/logs.db")
    linux = Environment(Path("/home/ana"), {"XDG_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "/data"})
    assert homes.llm_logs(linux) == Path("/cfg/io.datasette.llm/logs.db")
    assert homes.opencode_data(linux) == Path("/data/opencode")
    assert homes.claude_projects(win) == Path("C:/Users/ana/.claude/projects")


def test_folder_names_are_encoded_as_the_agents_do() -> None:
    assert homes.claude_project_folder("/home/me/my_app.v2") == "-home-me-my-app-v2"
    assert homes.pi_session_folder("/home/me/app") == "--home-me-app--"


def test_an_unreadable_folder_is_named_and_skipped(tmp_path: Path) -> None:
    home = fake_home(tmp_path / "home")
    sessions = home / ".pi" / "agent" / "sessions"
    for f in sessions.rglob("*.jsonl"):
        f.unlink()
    for d in sorted(sessions.iterdir()):
        d.rmdir()
    sessions.rmdir()
    sessions.write_text("not a folder")  # unreadable as a folder, even for root
    found = {f.tool: f for f in find_sources(Environment(home))}
    assert found["pi"].exists and found["pi"].sessions == 0
    assert any(str(sessions) in p and "cannot be read" in p for p in found["pi"].problems)
    assert found["codex"].sessions == 2
