"""``convo sources`` and ``convo sync`` against a fake home (never the real one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_home import codex_rollout, fake_home

from explorer.cli.main import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = fake_home(tmp_path / "home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "LLM_USER_PATH", "PI_CODING_AGENT_DIR",
                 "XDG_DATA_HOME", "XDG_CONFIG_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_sources_lists_each_tool(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "sources", "--json")
    assert code == 0
    rows = {r["tool"]: r for r in json.loads(out)}
    assert rows["codex"]["sessions"] == 2 and rows["codex"]["path"].startswith(str(home))
    assert rows["oh-my-pi"]["exists"] is False
    code, out, _ = run(capsys, "sources", "--tool", "codex,gemini-cli")
    assert code == 0 and "claude-code" not in out
    assert [line.split()[:3] for line in out.splitlines() if line.split()[:1] in (
        ["codex"], ["gemini-cli"])] == [["codex", "2", "sessions"], ["gemini-cli", "1", "sessions"]]


def test_an_unknown_tool_is_refused(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["sources", "--tool", "windsurf"])
    assert stop.value.code == 2
    assert "unknown tool windsurf" in capsys.readouterr().err


def test_S1_sync_twice_adds_once(home: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "x.db")
    code, out, _ = run(capsys, "sync", "--db", db, "--json")
    first = json.loads(out)
    assert code == 0 and first["added_messages"] > 0 and first["errors"] == []
    code, out, _ = run(capsys, "sync", "--db", db)
    assert code == 0 and out.startswith("0 new messages") and "9 unchanged" in out


def test_handoff_prints_the_file_and_the_resume_command(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "h.db")
    assert run(capsys, "import", "--db", db, str(codex_rollout()))[0] == 0
    code, out, _ = run(capsys, "handoff", "1", "--agent", "codex", "--db", db, "--json")
    done = json.loads(out)
    assert code == 0 and Path(done["path"]).is_file()
    assert Path(done["path"]).is_relative_to(home / ".codex" / "sessions")
    assert done["command"].endswith(f"codex resume {done['session_id']}")
    assert done["differences"] == []
    code, _, err = run(capsys, "handoff", "1", "--agent", "codex", "--db", db)
    assert code == 1 and "nothing was written" in err


def test_V2_sync_prepares_the_views_of_the_big_conversations_it_changed(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.app.kept import prepared as prepared_views
    from explorer.app.kept import turns as kept_turns
    from explorer.store import Store

    monkeypatch.setattr(prepared_views, "CHILD_MIN_MESSAGES", 10)
    db = tmp_path / "p.db"
    code, out, _ = run(capsys, "sync", "--db", str(db), "--json")
    changed = json.loads(out)["conversations"]
    assert code == 0 and changed
    with Store(db) as store:
        big = [c for c in changed if store.conversation(c).message_count >= 10]
        small = [c for c in changed if c not in big]
        assert big and all(kept_turns.is_kept(store, c) for c in big)
        assert not any(kept_turns.is_kept(store, c) for c in small)
