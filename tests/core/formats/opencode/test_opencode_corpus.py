"""The OpenCode 1.18.33 database the real client recorded (``tests/corpus/opencode``).

``opencode run`` answered, ran bash, read, write and edit, was continued with
``--session`` and ``--continue``, then ``--session <id> --fork`` copied the session into a
new one (titled "… (fork #1)", no parent recorded) and continued the copy. The copy's
messages have ids of their own, so today the fork is a second conversation holding the
shared turns again, not linked to the original.
"""

from __future__ import annotations

from typing import Any

from explorer.formats import opencode
from explorer.formats.base import ImportedConversation
from tests.corpus import CORPUS, manifests

DB = CORPUS / "opencode" / "home" / ".local" / "share" / "opencode" / "opencode.db"
PROMPTS: list[str] = manifests()["opencode"]["prompts"]


def _original_and_fork() -> tuple[ImportedConversation, ImportedConversation]:
    convs = sorted(opencode.read(DB), key=lambda c: len(c.messages))
    assert len(convs) == 2
    return convs[0], convs[1]


def _said(conv: ImportedConversation) -> list[str]:
    return [m.text for m in conv.messages if m.role == "user"]


def test_the_prompts_arrive_as_typed_and_every_tool_has_its_result() -> None:
    original, _ = _original_and_fork()
    assert _said(original) == PROMPTS[:3]
    results = {p.tool_use_id: p for m in original.messages for p in m.tool_results()}
    ran: dict[str, Any] = {p.tool_name: results[p.tool_use_id].text
                           for m in original.messages for p in m.tool_uses()}
    assert set(ran) == {"bash", "read", "write", "edit"}
    assert "notes.txt" in ran["bash"]
    assert "first line of the notes" in ran["read"]
    assert "Wrote file successfully" in ran["write"]
    assert "Edit applied successfully" in ran["edit"]
    assert all(m.model == "fake-model" for m in original.messages if m.role == "assistant")
    assert original.notes == []


def test_today_the_fork_is_a_second_conversation_with_copies_of_the_shared_turns() -> None:
    original, fork = _original_and_fork()
    assert fork.title.endswith("(fork #1)") and fork.source_id != original.source_id
    shared = len(original.messages)
    assert [(m.role, m.text) for m in fork.messages[:shared]] == \
        [(m.role, m.text) for m in original.messages]
    assert not {m.source_id for m in fork.messages} & {m.source_id for m in original.messages}
    assert _said(fork) == [*PROMPTS[:3], PROMPTS[3]]


def test_step_markers_are_counted_not_kept() -> None:
    for conv in _original_and_fork():
        steps = conv.ignored_records
        assert steps["part:step-start"] == steps["part:step-finish"] > 0
