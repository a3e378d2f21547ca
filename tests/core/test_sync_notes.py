"""``convo sync`` names what it repaired or skipped, as ``convo import`` does, on stderr and
under ``notes`` in ``--json`` (it used to repair silently)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli import main


def _session(home: Path) -> Path:
    project = home / ".claude" / "projects" / "-work-app"
    project.mkdir(parents=True)
    lines = [
        json.dumps({"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s-1",
                    "timestamp": "2026-01-01T00:00:00Z", "cwd": "/work/app",
                    "message": {"role": "user", "content": "hello"}}),
        '{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessi',  # cut mid-line
        json.dumps({"type": "assistant", "uuid": "a2", "parentUuid": "u1", "sessionId": "s-1",
                    "timestamp": "2026-01-01T00:00:02Z", "cwd": "/work/app",
                    "message": {"id": "m2", "role": "assistant", "model": "claude-x",
                                "content": [{"type": "text", "text": "hi"}]}}),
    ]
    path = project / "s-1.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_sync_names_the_line_it_skipped_as_import_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    _session(home)
    monkeypatch.setenv("HOME", str(home))
    db = str(tmp_path / "t.db")
    assert main.main(["--db", db, "sync", "--tool", "claude-code", "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["added_messages"] == 2
    assert any("repaired/skipped: skipped line 2" in n for n in report["notes"]), report
    assert "convo: note: conversation 1: repaired/skipped: skipped line 2" in err
