"""aider's chat history, as aider 0.86.2 wrote it (tests/corpus/aider), and as it grows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import new_store, run_cli

from explorer.app.importing.sync import sync_units
from explorer.app.importing.units import Unit
from explorer.formats import aider
from explorer.formats.registry import detect
from tests.corpus import CORPUS

HISTORY = CORPUS / "aider" / "home" / "projects" / "notes" / ".aider.chat.history.md"


def test_every_run_is_one_line_with_the_edit_as_a_call_and_aiders_outcome() -> None:
    assert detect(HISTORY) is aider
    [conv] = aider.read(HISTORY)
    roles = [m.role for m in conv.messages]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "user", "user",
                     "assistant"]
    edit = conv.messages[3]
    [call] = edit.tool_uses()
    assert json.loads(call.text) == {"path": "notes.txt", "search": "second line",
                                     "replace": "second line, edited"}
    assert "<<<<<<< SEARCH" in call.meta["block"] and "<<<<<<<" not in edit.text
    [result] = conv.messages[4].tool_results()
    assert result.tool_use_id == call.tool_use_id and result.text == "Applied edit to notes.txt"
    assert not result.is_error
    assert {m.model for m in conv.messages if m.role == "assistant"} == {"openai/fake-model"}
    run = conv.messages[2].source_meta["run"]
    assert "Aider v0.86.2" in run["output"] and run["started"].startswith("20")
    assert conv.messages[5].text == "/run cat notes.txt"
    assert "Added 2 lines of output to the chat." in conv.messages[5].source_meta["output"]
    # runs three and four restored the history: the context starts at run two's prompt
    assert conv.context_start == conv.messages[2].id and not conv.incomplete


def test_a_reply_quoting_and_a_multi_line_output_stay_what_they_are(tmp_path: Path) -> None:
    path = tmp_path / "h.md"
    path.write_text("\n# aider chat started at 2026-01-02 03:04:05\n\n"
                    "> Model: gpt-x with whole edit format  \n\n"
                    "#### why?  \n\n"
                    "> a quote the model wrote\n\n#### not a prompt\n\nmore words\n\n"
                    "> Tokens: 1k sent, 2 received.  \n"
                    "> The LLM did not conform\nto the edit format.  \n")
    [conv] = aider.read(path)
    answer = conv.messages[1]
    assert answer.text.startswith("> a quote") and "#### not a prompt" in answer.text
    assert answer.source_meta["usage"] == ["Tokens: 1k sent, 2 received."]
    assert answer.source_meta["output"] == ["The LLM did not conform\nto the edit format."]
    assert answer.model == "gpt-x"


def test_S1_a_sync_reads_on_from_the_last_turn_and_completes_it(tmp_path: Path) -> None:
    text = HISTORY.read_text()
    cut = text.index("> Applied edit to notes.txt")
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(text[:cut])
    unit = lambda: Unit(path, "aider", path.stat().st_size, path.stat().st_mtime_ns)  # noqa: E731
    with new_store(tmp_path) as store:
        first = sync_units(store, [unit()])
        assert first.errors == [] and first.added_messages == 4
        with path.open("a") as handle:
            handle.write(text[cut:])
        second = sync_units(store, [unit()])
        assert second.appended == 1 and second.added_messages == 4
        whole = new_store(tmp_path, "whole.db")
        shutil.copy(path, tmp_path / "again.md")
        sync_units(whole, [Unit(tmp_path / "again.md", "aider")])
        [a], [b] = store.conversations(), whole.conversations()
        assert a.message_count == b.message_count == 8
        whole.close()


def test_sources_json_names_aider_and_mistral_vibe(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    shutil.copytree(CORPUS / "aider" / "home", home)
    shutil.copytree(CORPUS / "mistral_vibe" / "home" / ".vibe", tmp_path / "vibe")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("VIBE_HOME", str(tmp_path / "vibe"))
    code, out, _ = run_cli(capsys, tmp_path / "x.db", "sources", "--json")
    assert code == 0
    listed = json.loads(out)
    rows = {r["tool"]: r for r in (listed["sources"] if isinstance(listed, dict) else listed)}
    assert rows["aider"]["sessions"] == 1 and rows["mistral-vibe"]["sessions"] == 2
