"""The recorded corpus: each agent's real client wrote these files; every one is found by
`convo sources`, synced whole (every prompt the recording sent is a person's message, every
tool call has its result), and a second sync writes nothing (S1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sources import find_sources
from explorer.app.importing.sync import sync_sources
from explorer.store import Store
from explorer.store.reads_all import conversation_messages
from tests.corpus import CORPUS, manifests

MANIFEST: dict[str, dict[str, Any]] = manifests()


def home_of(agent: str) -> Environment:
    return Environment(CORPUS / agent / "home", {})


def every_message(store: Store) -> list[Any]:
    return [m for c in store.conversations() for m in conversation_messages(store.reader, c.id)]


def test_the_manifest_names_every_file_and_only_those() -> None:
    for agent, entry in MANIFEST.items():
        listed = {CORPUS / agent / f for f in entry["files"]} | {CORPUS / agent / "manifest.json"}
        on_disk = {p for p in (CORPUS / agent).rglob("*") if p.is_file()}
        assert listed == on_disk, agent
        assert entry["version"] and entry["client"].split(":")[0] in ("npm", "pypi")


@pytest.mark.parametrize("agent", sorted(MANIFEST))
def test_S1_sources_finds_each_recording_where_the_agent_keeps_it(agent: str) -> None:
    entry = MANIFEST[agent]
    [found] = find_sources(home_of(agent), {entry["tool"]})
    assert found.exists and found.sessions >= 1 and found.problems == []
    assert {u.fmt for u in found.units} == {entry["format"]}


@pytest.mark.parametrize("agent", sorted(MANIFEST))
def test_S1_a_recording_syncs_whole_and_once(agent: str, tmp_path: Path) -> None:
    entry = MANIFEST[agent]
    with new_store(tmp_path) as store:
        first = sync_sources(store, home_of(agent), {entry["tool"]})
        assert first.errors == [] and first.added_messages > 0
        messages = every_message(store)
        said = [m.text.strip() for m in messages if m.role == "user"]
        for prompt in entry["prompts"]:
            assert prompt.strip() in said, f"{agent}: {prompt!r} is not a person's message"
        uses = {p.tool_use_id for m in messages for p in m.tool_uses()}
        results = {p.tool_use_id for m in messages for p in m.tool_results()}
        assert uses == results, f"{agent}: calls without results {uses - results}"
        if any("TOOL:" in p for p in entry["prompts"]):
            assert uses, f"{agent}: the recording asked for tool calls but none were imported"
        assert all(m.model for m in messages if m.role == "assistant")
        again = sync_sources(store, home_of(agent), {entry["tool"]})
        assert again.added_messages == 0 and again.errors == []
