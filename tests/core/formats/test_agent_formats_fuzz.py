"""Mutated recorded Codex, Gemini CLI and OpenCode files: records or a FormatError, never a
crash."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from agent_home import GEMINI, codex_rollout, recorded
from core.formats.pi.test_pi_fuzz import mutate_lines, mutate_value
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.formats import codex, gemini_cli, opencode
from explorer.formats.base import FormatError, ImportedConversation
from tests.corpus import CORPUS

FUZZ = settings(max_examples=80, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def well_formed(convs: list[ImportedConversation]) -> None:
    for conv in convs:
        ids = {m.id for m in conv.messages}
        assert len(ids) == len(conv.messages)
        assert conv.tip is None or conv.tip in ids
        assert all(m.parent_id is None or m.parent_id in ids for m in conv.messages)
        assert all(c.message_key in ids for c in conv.checkpoints)


def read_or_refuse(module: ModuleType, path: Path) -> None:
    try:
        convs = list(module.read(path))
    except FormatError:
        return
    well_formed(convs)


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@FUZZ
@given(data=st.data())
def test_mutated_codex_rollout(data: st.DataObject, tmp_path: Path) -> None:
    lines = lines_of(codex_rollout())
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(mutate_lines(data, lines)))
    read_or_refuse(codex, path)


@FUZZ
@given(data=st.data())
def test_mutated_gemini_jsonl(data: st.DataObject, tmp_path: Path) -> None:
    lines = lines_of(recorded("gemini_cli", GEMINI))
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(mutate_lines(data, lines)))
    read_or_refuse(gemini_cli, path)


@FUZZ
@given(data=st.data())
def test_mutated_gemini_json(data: st.DataObject, tmp_path: Path) -> None:
    older = CORPUS / "authored" / "gemini_cli" / "session-2026-12-04T23-45-47adf9f6.json"
    value = json.loads(older.read_text())
    path = tmp_path / "session.json"
    for _ in range(data.draw(st.integers(1, 3))):
        value = mutate_value(data, value)
    path.write_text(json.dumps(value))
    read_or_refuse(gemini_cli, path)


@FUZZ
@given(data=st.data())
def test_mutated_opencode_export(data: st.DataObject, tmp_path: Path) -> None:
    export = next((CORPUS / "opencode" / "home" / "exports").glob("ses_*.json"))
    value = json.loads(export.read_text())
    path = tmp_path / "export.json"
    for _ in range(data.draw(st.integers(1, 3))):
        value = mutate_value(data, value)
    path.write_text(json.dumps(value))
    read_or_refuse(opencode, path)
