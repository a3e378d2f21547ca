"""A project folder's ``agent-*.jsonl`` files are listed once while it is unchanged, and a
file added later is seen at the next ask (S1: a sync of many sessions reads each folder once,
and still finds what an agent wrote since)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from explorer.formats.claude_code import agent_listing
from explorer.formats.claude_code.agent_listing import agent_paths


def _age(folder: Path, seconds: float = 60.0) -> None:
    old = time.time() - seconds
    os.utime(folder, (old, old))


def _count_listings(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    listed: list[Path] = []
    glob = Path.glob

    def counted(self: Path, pattern: str) -> object:
        listed.append(self)
        return glob(self, pattern)

    monkeypatch.setattr(Path, "glob", counted)
    return listed


def test_S1_an_unchanged_folder_is_listed_once(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(3):
        (tmp_path / f"agent-{i}.jsonl").write_text("{}\n")
        (tmp_path / f"session-{i}.jsonl").write_text("{}\n")
    _age(tmp_path)
    listed = _count_listings(monkeypatch)
    answers = {agent_paths(tmp_path) for _ in range(50)}
    assert answers == {tuple(tmp_path / f"agent-{i}.jsonl" for i in range(3))}
    assert listed == [tmp_path]


def test_S1_an_agent_file_added_later_is_seen(tmp_path: Path) -> None:
    (tmp_path / "agent-a.jsonl").write_text("{}\n")
    _age(tmp_path)
    assert [p.name for p in agent_paths(tmp_path)] == ["agent-a.jsonl"]
    (tmp_path / "agent-b.jsonl").write_text("{}\n")  # the folder's time moves
    assert [p.name for p in agent_paths(tmp_path)] == ["agent-a.jsonl", "agent-b.jsonl"]
    (tmp_path / "agent-a.jsonl").unlink()
    assert [p.name for p in agent_paths(tmp_path)] == ["agent-b.jsonl"]


def test_S1_a_folder_changed_just_now_is_listed_every_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Within one tick of its time stamp a folder may gain an entry the time does not show."""
    (tmp_path / "agent-a.jsonl").write_text("{}\n")
    listed = _count_listings(monkeypatch)
    agent_paths(tmp_path)
    agent_paths(tmp_path)
    assert len(listed) == 2 and tmp_path not in agent_listing._kept


def test_S1_no_folder_or_a_file_lists_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert agent_paths(tmp_path / "missing") == ()
    assert agent_paths(tmp_path / "file") == ()
