"""``convo mcp`` before it serves (A1): what it refuses to start on, in one line and touching
nothing, and the set-up it prints for each agent."""

from __future__ import annotations

import json
import sqlite3
import sys
import tomllib
from pathlib import Path

import pytest
from helpers import newer_database

from explorer.app.archive.agent_config import AGENTS
from explorer.cli import main
from explorer.store.connection import open_connection
from explorer.store.migrations import migrate


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_A1_a_missing_database_is_refused_and_not_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--db", str(tmp_path / "none.db"), "mcp")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("convo: error: no database at")
    assert list(tmp_path.iterdir()) == []


def test_A1_another_programs_file_and_a_newer_database_are_refused_untouched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "logs.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE responses (id TEXT)")
    conn.close()
    before = other.read_bytes()
    code, _, err = run(capsys, "--db", str(other), "mcp")
    assert code == 1 and "another program's SQLite database" in err and err.count("\n") == 1
    assert other.read_bytes() == before
    newer = tmp_path / "newer.db"
    newer_database(newer)
    before = newer.read_bytes()
    code, _, err = run(capsys, "--db", str(newer), "mcp")
    assert code == 1 and "upgraded by a newer version" in err and err.count("\n") == 1
    assert newer.read_bytes() == before


def test_A1_an_older_database_is_refused_with_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "old.db"
    conn = open_connection(old)
    migrate(conn, upto=12)
    conn.close()
    before = old.read_bytes()
    code, _, err = run(capsys, "--db", str(old), "mcp")
    assert code == 1 and err.count("\n") == 1
    assert "written by an older version: open it once with this one" in err
    assert old.read_bytes() == before


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_A1_print_config_gives_each_agent_its_set_up(
        agent: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda name: None)  # convo not on the PATH here
    db = tmp_path / "mine.db"
    code, out, err = run(capsys, "--db", str(db), "mcp", "--print-config", agent,
                         "--allow-writes")
    assert code == 0 and err == "" and not db.exists()  # no database is needed for this
    command = [sys.executable, "-m", "explorer.cli.main", "--db", str(db.resolve()), "mcp",
               "--allow-writes"]
    lines = out.splitlines()
    if agent == "codex":
        table = tomllib.loads("\n".join(lines[lines.index("[mcp_servers.convo]"):]))
        assert [table["mcp_servers"]["convo"]["command"],
                *table["mcp_servers"]["convo"]["args"]] == command
        assert lines[1].startswith("codex mcp add convo -- ")
        return
    config = json.loads("\n".join(lines[next(i for i, x in enumerate(lines) if x == "{"):
                                        next(i for i, x in enumerate(lines) if x == "}") + 1]))
    if agent == "opencode":
        assert config["mcp"]["convo"] == {"type": "local", "command": command,
                                          "enabled": True}
    else:
        entry = config["mcpServers"]["convo"]
        assert [entry["command"], *entry["args"]] == command
    first = {"claude-code": "claude mcp add --scope user convo -- ",
             "gemini-cli": "gemini mcp add --scope user convo ",
             "opencode": "opencode mcp add convo --global -- ",
             "pi": "pi install npm:pi-mcp-adapter"}[agent]
    assert lines[1].startswith(first)


def test_A1_print_config_names_convo_when_it_is_on_the_path(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda name: f"/usr/bin/{name}")
    code, out, _ = run(capsys, "mcp", "--print-config", "claude-code")
    assert code == 0 and out.splitlines()[1] == "claude mcp add --scope user convo -- convo mcp"


def test_A1_an_unknown_agent_is_a_usage_mistake(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main.main(["mcp", "--print-config", "cursor"])
    assert e.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_A1_a_release_build_names_its_own_console_program(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    cli = tmp_path / "convo-cli.exe"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(cli))
    monkeypatch.setattr("shutil.which", lambda name: "C:/Program Files/convo.exe")
    code, out, _ = run(capsys, "mcp", "--print-config", "codex")
    assert code == 0 and f"command = {json.dumps(str(cli.resolve()))}" in out
