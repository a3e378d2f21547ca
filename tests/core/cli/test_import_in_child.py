"""``convo import`` of a big file reads it in a second process while this one writes: the
same conversations as reading it here, and the same report."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from agent_home import claude_sessions
from helpers import run_cli

from explorer.app.importing import process
from explorer.cli import commands


def stored(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT c.source_id, m.source_id, m.role, m.preview, (SELECT group_concat("
            "p.kind || ':' || p.text, '|') FROM parts p WHERE p.message_id = m.id) "
            "FROM messages m JOIN conversations c ON c.id = m.conversation_id "
            "ORDER BY m.id").fetchall()
    finally:
        conn.close()


def test_a_big_import_is_read_in_a_child_and_stores_what_a_read_here_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = [str(p) for p in claude_sessions()]
    code, here_out, _ = run_cli(capsys, tmp_path / "here.db", "import", *sessions)
    assert code == 0
    started: list[int] = []
    real = process.ChildImport.__init__

    def counted(self: process.ChildImport, *args: object, **kw: object) -> None:
        started.append(1)
        real(self, *args, **kw)  # type: ignore[arg-type]
    monkeypatch.setattr(process.ChildImport, "__init__", counted)
    monkeypatch.setattr(commands, "CHILD_BYTES", 0)  # every import counts as big
    code, child_out, _ = run_cli(capsys, tmp_path / "child.db", "import", *sessions)
    assert code == 0 and started == [1]
    assert child_out == here_out
    assert stored(tmp_path / "child.db") == stored(tmp_path / "here.db") != []
