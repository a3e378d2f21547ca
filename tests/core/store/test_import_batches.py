"""Imports write many small conversations in one transaction, each one whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import new_store

from explorer.formats.base import ImportedConversation
from explorer.store import StoreError, import_writes
from explorer.tree.model import text_message


def _conv(n: int) -> ImportedConversation:
    msgs = [text_message("q", None, "user", f"question {n}"),
            text_message("a", "q", "assistant", f"answer {n}")]
    return ImportedConversation(f"c{n}", "test", msgs, tip="a", source_id=f"c{n}")


def test_a_refused_conversation_rolls_back_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = import_writes.insert_imported

    def refuse_the_second(conn, ic, **options):  # type: ignore[no-untyped-def]
        outcome = real(conn, ic, **options)
        if ic.title == "c1":
            raise StoreError("refused after writing half of it")
        return outcome

    monkeypatch.setattr(import_writes, "insert_imported", refuse_the_second)
    with new_store(tmp_path) as s:
        results = s.import_conversations([_conv(0), _conv(1), _conv(2)])
        assert [type(r).__name__ for r in results] == ["ImportOutcome", "StoreError",
                                                       "ImportOutcome"]
        assert sorted(c.title for c in s.conversations()) == ["c0", "c2"]
        assert s.reader.execute("SELECT count(*) FROM messages").fetchone()[0] == 4
        assert [h.message_id for h in s.search("question")] != []
        assert s.search('"question 1"') == []
        # the full-text index, written once for the batch, matches the parts (rank 1: the
        # content table too): the rolled back conversation's parts are in neither
        s.transact(lambda c: c.execute(
            "INSERT INTO parts_fts(parts_fts, rank) VALUES ('integrity-check', 1)"))


def test_a_cancel_between_conversations_keeps_the_ones_written(tmp_path: Path) -> None:
    asked = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 2

    with new_store(tmp_path) as s:
        results = s.import_conversations([_conv(n) for n in range(5)], cancel)
        assert len(results) == 2 and len(s.conversations()) == 2
