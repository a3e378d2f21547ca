"""The authored corpus: sessions of agents whose client cannot run here, written by a script
from each client's own code or its stores' observed layout (``tests/corpus/authored``). Each
is found by `convo sources` where the agent keeps it, synced whole (every prompt a person's
message, every tool call with its result), and a second sync writes nothing (S1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sources import find_sources
from explorer.app.importing.sync import sync_sources
from explorer.store.reads_all import conversation_messages
from tests.corpus import CORPUS

AUTHORED = CORPUS / "authored"
SOURCES: list[tuple[str, dict[str, Any]]] = [
    (p.parent.name, source) for p in sorted(AUTHORED.glob("*/manifest.json"))
    for source in json.loads(p.read_text())["sources"]]
IDS = [f"{agent}-{source['tool']}" for agent, source in SOURCES]


def test_each_authored_manifest_names_its_files_and_says_it_was_authored() -> None:
    for manifest in sorted(AUTHORED.glob("*/manifest.json")):
        entry = json.loads(manifest.read_text())
        folder = manifest.parent
        listed = {folder / f for f in entry["files"]}
        assert listed == {p for p in (folder / "home").rglob("*") if p.is_file()}
        assert "authored" in entry and "not recorded" in entry["authored"]


@pytest.mark.parametrize(("agent", "source"), SOURCES, ids=IDS)
def test_S1_sources_finds_each_authored_store(agent: str, source: dict[str, Any]) -> None:
    [found] = find_sources(Environment(AUTHORED / agent / "home", {}), {source["tool"]})
    assert found.exists and found.sessions >= 1 and found.problems == []
    assert {u.fmt for u in found.units} == {source["format"]}


@pytest.mark.parametrize(("agent", "source"), SOURCES, ids=IDS)
def test_S1_an_authored_store_syncs_whole_and_once(agent: str, source: dict[str, Any],
                                                    tmp_path: Path) -> None:
    env = Environment(AUTHORED / agent / "home", {})
    with new_store(tmp_path) as store:
        first = sync_sources(store, env, {source["tool"]})
        assert first.errors == [] and first.added_messages > 0
        messages = [m for c in store.conversations()
                    for m in conversation_messages(store.reader, c.id)]
        said = [m.text.strip() for m in messages if m.role == "user"]
        for prompt in source["prompts"]:
            assert prompt.strip() in said, f"{prompt!r} is not a person's message"
        uses = {p.tool_use_id for m in messages for p in m.tool_uses()}
        results = {p.tool_use_id for m in messages for p in m.tool_results()}
        assert uses and uses == results
        again = sync_sources(store, env, {source["tool"]})
        assert again.added_messages == 0 and again.errors == []
