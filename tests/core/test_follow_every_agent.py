"""Every agent's sessions can be followed live (S1): a conversation synced from a recorded
(or, where the client cannot run here, authored) home is followable, and a poll of a source
that did not change adds nothing and says nothing; one that grew adds what it gained."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.follow import FOLLOWABLE, followable, poll
from explorer.app.importing.sync import sync_sources
from explorer.formats.registry import formats
from tests.corpus import CORPUS, manifests

HOMES: list[tuple[str, str, Path]] = [
    (agent, entry["tool"], CORPUS / agent / "home") for agent, entry in manifests().items()]
HOMES += [(p.parent.name, source["tool"], p.parent / "home")
          for p in sorted((CORPUS / "authored").glob("*/manifest.json"))
          for source in json.loads(p.read_text())["sources"]
          if (p.parent / "home").is_dir()]


def test_every_agent_format_that_keeps_growing_can_be_followed() -> None:
    growing = {name for name, c in formats().items()
               if c.tail is not None or c.changes is not None}
    agents = {"continue_cli", "cline", "cline_tasks", "mistral_vibe"}  # rewritten whole
    assert growing | agents <= set(FOLLOWABLE)


@pytest.mark.parametrize(("agent", "tool", "home"), HOMES,
                         ids=[f"{a}-{t}" for a, t, _ in HOMES])
def test_S1_each_agents_conversations_are_followed_and_an_idle_poll_adds_nothing(
        agent: str, tool: str, home: Path, tmp_path: Path) -> None:
    copy = tmp_path / "home"
    shutil.copytree(home, copy)
    with new_store(tmp_path) as store:
        report = sync_sources(store, Environment(copy, {}), {tool})
        assert report.errors == [] and report.conversations, agent
        for cid in sorted(report.conversations):
            followed = followable(store, cid)
            assert followed.agent == formats()[store.conversation(cid).source_format or ""].title
            idle: Any = poll(store, followed)
            assert (idle.added, idle.errors) == (0, []), (agent, cid)


APPENDED = sorted(a for a, e in manifests().items()
                  if formats()[e["format"]].tail is not None)


@pytest.mark.parametrize("agent", APPENDED)
def test_S1_a_followed_session_that_grew_gives_what_it_gained_once(
        agent: str, tmp_path: Path) -> None:
    """Each session file the agent appends to is cut to its first half, synced and
    followed; put back whole, one poll brings what the followed files gained and a second
    nothing; a sync brings the rest (a fork's file joins the conversation it copies but is
    not the one followed), ending as one whole read."""
    entry = manifests()[agent]
    copy = tmp_path / "home"
    shutil.copytree(CORPUS / agent / "home", copy)
    whole: dict[Path, bytes] = {}
    for name in entry["files"]:
        path = copy / Path(name).relative_to("home")
        data = path.read_bytes()
        lines = data.splitlines(keepends=True)
        if path.suffix in (".jsonl", ".md") and len(lines) > 3:
            whole[path] = data
            path.write_bytes(b"".join(lines[: len(lines) // 2]))
    assert whole, f"{agent}: no appended session file in the recording"
    env = Environment(copy, {})
    with new_store(tmp_path) as store:
        first = sync_sources(store, env, {entry["tool"]})
        assert first.errors == []
        followed = [followable(store, cid) for cid in sorted(first.conversations)]
        for path, data in whole.items():
            path.write_bytes(data)
        gained = sum(poll(store, f).added for f in followed)
        again = sum(poll(store, f).added for f in followed)
        full = new_store(tmp_path, "whole.db")
        try:
            expected = sync_sources(full, env, {entry["tool"]}).added_messages
        finally:
            full.close()
        rest = sync_sources(store, env, {entry["tool"]}).added_messages  # files not followed
        assert gained > 0 and again == 0
        assert first.added_messages + gained + rest == expected  # as one whole read
        assert sync_sources(store, env, {entry["tool"]}).added_messages == 0
