"""The pi 0.73.1 sessions the real client recorded (``tests/corpus/pi``).

``pi -p`` answered, ran bash, read, write and edit, was resumed with ``--session`` and
``--continue``; a ``/rewind`` command (an extension doing what ``/tree`` does) moved the
leaf back to the first answer, so the next prompt opened a second branch inside the same
file; ``--fork`` then copied the session, entry ids and all, into a file of its own whose
header names its ``parentSession``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from explorer.formats import pi
from explorer.formats.base import ImportedConversation
from explorer.tree.paths import children_map
from tests.corpus import CORPUS, manifests

HOME = CORPUS / "pi" / "home"
PROMPTS: list[str] = manifests()["pi"]["prompts"]


def _sessions() -> tuple[ImportedConversation, ImportedConversation]:
    """The original session and its fork (the one whose header names a parent)."""
    files = sorted((HOME / ".pi" / "agent" / "sessions").glob("*/*.jsonl"))
    assert len(files) == 2
    forked = [p for p in files if "parentSession" in json.loads(p.read_text().split("\n")[0])]
    [fork_file] = forked
    [original_file] = [p for p in files if p != fork_file]
    return _one(original_file), _one(fork_file)


def _one(path: Path) -> ImportedConversation:
    [conv] = list(pi.read(path))
    return conv


def _prompt(conv: ImportedConversation, text: str) -> Any:
    [found] = [m for m in conv.messages if m.role == "user" and m.text == text]
    return found


def test_the_rewound_prompt_branches_from_the_first_answer_in_the_same_file() -> None:
    original, _ = _sessions()
    [answer] = [m for m in original.messages if m.parent_id == _prompt(original, PROMPTS[0]).id]
    below = set(children_map(original.messages)[answer.id])
    assert below == {_prompt(original, PROMPTS[1]).id, _prompt(original, PROMPTS[3]).id}
    parents = {m.id: m.parent_id for m in original.messages}
    on_tip, node = set(), original.tip
    while node is not None:
        on_tip.add(node)
        node = parents[node]
    assert _prompt(original, PROMPTS[3]).id in on_tip  # pi's leaf: the last branch written
    assert _prompt(original, PROMPTS[2]).id not in on_tip


def test_every_tool_pi_ran_is_paired_with_what_it_returned() -> None:
    original, _ = _sessions()
    results = {p.tool_use_id: p for m in original.messages for p in m.tool_results()}
    ran: dict[str, list[str]] = {}
    for m in original.messages:
        for p in m.tool_uses():
            ran.setdefault(p.tool_name or "", []).append(results[p.tool_use_id].text)
    assert set(ran) == {"bash", "read", "write", "edit"}
    assert "notes.txt" in ran["bash"][0] and "2 notes.txt" in ran["bash"][1]
    assert "first line of the notes" in ran["read"][0]
    assert "Successfully replaced" in ran["edit"][0]
    assert all(m.model == "fake-model" for m in original.messages if m.role == "assistant")


def test_the_fork_is_a_conversation_of_its_own_with_the_whole_tree_and_its_turn() -> None:
    original, fork = _sessions()
    assert fork.source_id != original.source_id
    assert {m.source_id for m in original.messages} < {m.source_id for m in fork.messages}
    own = [m.text for m in fork.messages
           if m.role == "user" and m.source_id not in {o.source_id for o in original.messages}]
    assert own == [PROMPTS[4]]
    assert original.notes == [] and fork.notes == []
