"""Claude Code's meta records (isMeta text, command caveats, local command output such
as /exit's) are marked as such, not imported as prompts; the slash command itself stays
the person's prompt."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from explorer.app.importing.run import import_paths
from explorer.formats import claude_code
from explorer.store import Store
from explorer.store.turn_reads import read_previews, read_turn_source
from explorer.tree.turn_grouping import group_columns
from explorer.tree.turn_source import PROMPT

FIXTURE = Path(__file__).parent / "fixtures" / "meta_records.jsonl"


def test_claude_code_meta_records_are_marked_not_prompts() -> None:
    (conv,) = list(claude_code.read(FIXTURE))
    kinds = {m.id: m.source_meta.get("meta_record") for m in conv.messages}
    assert kinds == {"c1": "meta", "c2": None, "c3": "command_output", "p1": None,
                     "s1": "meta", "a1": None, "x1": None, "x2": "command_output"}
    assert conv.title == "Why is the CI red?"


def test_claude_code_meta_records_open_no_turn(tmp_path: Path) -> None:
    store = Store(tmp_path / "explorer.db")
    try:
        (outcome,) = import_paths(store, [FIXTURE]).conversations
        cols = read_turn_source(store.reader, outcome.conversation_id).columns
        assert cols is not None
        prompts = [cols.ids[i] for i in range(len(cols)) if cols.bits[i] & PROMPT]
        by_id = {m.id: m for m in store.path(outcome.conversation_id, max(prompts))}
        assert [by_id[p].text.split("\n")[0] for p in prompts] == [
            "<command-name>/model</command-name>", "Why is the CI red?",
            "<command-name>/exit</command-name>"]
        tree = group_columns(cols, partial(read_previews, store.reader))
        # the caveat with /model and its output (a record joins the prompt below it, no node
        # of its own); the prompt with the skill text and answer; /exit
        assert [len(t.messages) for t in tree.turns] == [3, 3, 2]
        assert tree.turns[0].prompt.startswith("/model")
    finally:
        store.close()
