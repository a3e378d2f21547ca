"""The Gemini CLI 0.61.0 chat the real client recorded (``tests/corpus/gemini_cli``).

``gemini -p`` answered, ran run_shell_command, read_file, write_file and replace, and was
resumed twice with ``--resume``. Every run wrote the header line again, each answer that
called a tool was written twice (its text first, then again with its calls), each tool's
output came back as a ``user`` record of ``functionResponse`` parts, and every resume
wrote the whole history again as ``{"$set": {"messages": [...]}}`` (with the
``<session_context>`` preamble and ``<id>_response`` turns of its own). None of these is a
prompt or a second copy of a message.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sync import sync_sources
from explorer.formats import gemini_cli
from explorer.formats.base import ImportedConversation
from explorer.store.reads_all import conversation_messages
from tests.corpus import CORPUS, manifests

HOME = CORPUS / "gemini_cli" / "home"
PROMPTS: list[str] = manifests()["gemini_cli"]["prompts"]


def _chat() -> Path:
    [path] = (HOME / ".gemini" / "tmp").glob("*/chats/session-*.jsonl")
    return path


def _read() -> ImportedConversation:
    [conv] = list(gemini_cli.read(_chat()))
    return conv


def test_the_three_prompts_are_the_only_words_of_the_person() -> None:
    conv = _read()
    assert [m.text for m in conv.messages if m.role == "user"] == PROMPTS
    assert not any(m.text.startswith("<session_context>") for m in conv.messages)
    assert conv.notes == []


def test_every_tool_is_paired_once_with_what_it_returned() -> None:
    conv = _read()
    results = {p.tool_use_id: p for m in conv.messages for p in m.tool_results()}
    uses = [p for m in conv.messages for p in m.tool_uses()]
    assert len(uses) == len(results) == 4
    ran = {p.tool_name: results[p.tool_use_id].text for p in uses}
    assert "notes.txt" in ran["run_shell_command"]
    assert "first line of the notes" in ran["read_file"]
    assert "Successfully created" in ran["write_file"]
    assert "Successfully modified" in ran["replace"]
    assert all(m.model == "gemini-2.5-flash" for m in conv.messages if m.role == "assistant")


def test_records_written_again_keep_one_copy_and_the_chain_stays_one_line() -> None:
    conv = _read()
    assert len({m.id for m in conv.messages}) == len(conv.messages)
    assert conv.ignored_records["rewritten record (last copy kept)"] == 4
    parents = [m.parent_id for m in conv.messages]
    assert parents == [None, *[m.id for m in conv.messages[:-1]]]


def _synced(store: Any) -> list[tuple[str, str]]:
    [conv] = store.conversations()
    return [(m.role, m.text) for m in conversation_messages(store.reader, conv.id)]


def test_S1_a_chat_followed_across_its_resumes_ends_as_the_whole_read(tmp_path: Path) -> None:
    """Synced after each run (the file grows by a header and a history again each time),
    the chat ends as one sync of the finished file: no message twice, none lost."""
    lines = _chat().read_text().splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith('{"sessionId"')]
    assert len(starts) == 3
    home = tmp_path / "home"
    target = home / _chat().relative_to(HOME)
    target.parent.mkdir(parents=True)
    with new_store(tmp_path, "grown.db") as grown, new_store(tmp_path, "whole.db") as whole:
        for end in [*starts[1:], len(lines)]:
            target.write_text("".join(lines[:end]))
            report = sync_sources(grown, Environment(home, {}), {"gemini-cli"})
            assert report.errors == []
        shutil.copy(_chat(), target)
        sync_sources(whole, Environment(home, {}), {"gemini-cli"})
        assert _synced(grown) == _synced(whole)
