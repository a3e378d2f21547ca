"""The session files a hand-back writes are as private as the agents' own, and the agents'
bookkeeping records (a turn's duration, a hook summary) read as quiet notes, not system turns."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from agent_home import codex_rollout
from helpers import new_store

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.run import import_paths
from explorer.app.sharing.handoff import handoff
from explorer.cli.output import message_lines
from explorer.tree.model import Message, Part
from explorer.tree.turn_grouping import group_turns
from explorer.tree.turn_view import TurnInput


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("agent", ["claude-code", "pi", "codex"])
def test_H1_a_handoff_file_is_0600_in_folders_made_0700(agent: str, tmp_path: Path,
                                                       ) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    old = os.umask(0o022)
    try:
        with new_store(tmp_path) as store:
            report = import_paths(store, [codex_rollout()])
            done = handoff(store, report.conversations[0].conversation_id, agent,
                           env=Environment(home))
    finally:
        os.umask(old)
    assert _mode(done.path) == 0o600
    made = [p for p in done.path.parents if home in p.parents]
    assert made and all(_mode(p) == 0o700 for p in made)
    assert _mode(home) == 0o755  # a folder that was there is left as it was


def test_a_turn_of_an_agents_notes_reads_as_a_note_not_a_system_turn() -> None:
    msgs = [
        TurnInput(1, None, "user", "hi", prompt=True),
        TurnInput(2, 1, "assistant", "hello"),
        TurnInput(3, 2, "system", "Turn took 0.7 s", record=True),  # beside an edit: a branch
        TurnInput(4, 2, "user", "go on", prompt=True),
    ]
    prompts = [t.prompt for t in group_turns(msgs).turns]
    assert "[note] Turn took 0.7 s" in prompts
    assert not any(p.startswith("[system]") for p in prompts)


def test_convo_show_prints_a_notice_as_a_note() -> None:
    notice = Message(7, 6, "system", [Part("text", "Turn took 0.7 s")],
                     source_meta={"meta_record": "notice", "notice": "turn_duration"})
    head = message_lines(notice)[0]
    assert head.startswith("--- 7 note · Claude Code notice (turn duration)")
    plain = Message(8, 7, "system", [Part("text", "You are helpful")])
    assert message_lines(plain)[0].startswith("--- 8 system")
