"""Mistral Vibe 3 sessions as mistral-vibe 3.0.2 wrote them (tests/corpus/mistral_vibe)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from explorer.formats import mistral_vibe
from explorer.formats.base import FormatError
from explorer.formats.registry import detect
from tests.corpus import CORPUS

SESSIONS = CORPUS / "mistral_vibe" / "home" / ".vibe" / "logs" / "session" / "unified"


def _continued() -> Path:
    """The session that ``--continue`` grew: its first turn's journal is gone."""
    return next(p for p in sorted(SESSIONS.iterdir())
                if "Say hello" in (p / "meta.json").read_text()
                or any("Look around" in j.read_text() for j in (p / "journal").glob("*.jsonl")))


def test_a_continued_session_keeps_the_turn_only_its_snapshot_remembers() -> None:
    folder = _continued()
    assert detect(folder) is mistral_vibe
    assert not (folder / "journal" / "0000000000000001.jsonl").exists()
    [conv] = mistral_vibe.read(folder)
    prompts = [m.text for m in conv.messages if m.role == "user"]
    assert prompts == ["Say hello and tell me what this folder is for.",
                       "Look around.\nTOOL:bash:ls -1\nTOOL:read:notes.txt"]
    calls = [p for m in conv.messages for p in m.tool_uses()]
    assert [c.tool_name for c in calls] == ["file_system.bash", "file_system.read_file"]
    assert json.loads(calls[0].text) == {"command": "ls -1"}
    results = {p.tool_use_id: p for m in conv.messages for p in m.tool_results()}
    assert set(results) == {c.tool_use_id for c in calls}
    assert "notes.txt" in results[calls[0].tool_use_id].text
    answers = [m for m in conv.messages if m.role == "assistant"]
    assert all(m.model == "fake-model" and m.created_at for m in answers)
    assert answers[-1].usage is not None and answers[-1].usage.input_tokens > 0
    assert conv.source_id == folder.name and conv.meta["cwd"].endswith("/work")


def test_a_missing_snapshot_chunk_is_named_and_the_journal_still_read(tmp_path: Path) -> None:
    folder = tmp_path / _continued().name
    shutil.copytree(_continued(), folder)
    for chunk in (folder / "chunks").glob("*.json"):
        chunk.unlink()
    [conv] = mistral_vibe.read(folder)
    assert any("missing or unreadable; read what the journal" in n for n in conv.notes)
    assert [m.text for m in conv.messages if m.role == "user"] == [
        "Look around.\nTOOL:bash:ls -1\nTOOL:read:notes.txt"]


def test_a_folder_that_is_not_a_session_is_refused(tmp_path: Path) -> None:
    (tmp_path / "journal").mkdir()
    (tmp_path / "CURRENT").write_text("{}")
    assert not mistral_vibe.sniff(tmp_path)
    try:
        list(mistral_vibe.read(tmp_path))
    except FormatError as exc:
        assert "not a Mistral Vibe session folder" in str(exc)
    else:
        raise AssertionError("read a folder that is not a session")
