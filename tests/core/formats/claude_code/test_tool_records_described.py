"""What each tool record is, in words the transcript shows (fixture: tool_records.jsonl, a
Claude Code session with a skill expansion, an interruption, a compaction marker and the
summary it continues from; and real Codex and pi sessions for their own kinds)."""

from __future__ import annotations

from pathlib import Path

from agent_home import codex_rollout

from explorer.app.importing.run import import_paths
from explorer.app.views.meta_records import folded_preview, meta_record
from explorer.formats import claude_code, codex
from explorer.store import Store
from explorer.store.turn_reads import read_turn_source
from explorer.tree.turn_source import PROMPT

FIXTURE = Path(__file__).parent / "fixtures" / "tool_records.jsonl"


def test_claude_code_tool_records_are_named_and_prompts_are_not() -> None:
    (conv,) = list(claude_code.read(FIXTURE))
    labels = {m.id: (r.label if (r := meta_record(m)) else None) for m in conv.messages}
    assert labels == {
        "u1": None, "a1": None, "m1": "Claude Code note", "u2": None, "a2": None,
        "i1": "Interrupted", "b1": "Compaction marker (manual, 155,000 tokens before)",
        "s1": "Compaction summary", "u3": None, "a3": None,
    }


def test_codex_injected_context_is_a_tool_record() -> None:
    conv = next(codex.read(codex_rollout()))
    kinds = [r.kind for m in conv.messages if (r := meta_record(m)) is not None]
    assert kinds == ["injected_context"] * 2  # the skills text and the environment context
    typed = [m for m in conv.messages if m.role == "user"]
    assert len(typed) == 3 and all(meta_record(m) is None for m in typed)


def test_a_long_record_is_folded_after_its_first_lines() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 11))
    assert folded_preview(text) == ("line 1\nline 2\nline 3\nline 4", 6)
    assert folded_preview("one line") == ("one line", 0)


def test_V1_a_compaction_summary_opens_no_turn(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    try:
        (outcome,) = import_paths(store, [FIXTURE]).conversations
        cols = read_turn_source(store.reader, outcome.conversation_id).columns
        assert cols is not None
        by_source = {m.id: m.source_id for m in store.path(outcome.conversation_id)}
        prompts = [by_source[cols.ids[i]] for i in range(len(cols)) if cols.bits[i] & PROMPT]
        assert prompts == ["u1", "u2", "u3"]  # not the skill note, the marker or the summary
    finally:
        store.close()
