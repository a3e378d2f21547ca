"""Importing the same llm ``logs.db`` again, as it grows, continues one conversation.

llm names messages by the hash of their content, so asking the same prompt again joins
the same tree with a newer thread, and ``-c`` adds to it. The fixtures are one logs.db
after each of three steps, written by llm 0.36 itself (``make_llm036_grown.py``)."""

from __future__ import annotations

from pathlib import Path

from explorer.app.importing.run import import_paths
from explorer.formats import llm
from explorer.store import Store

FIXTURES = Path(__file__).parent / "fixtures"
STEPS = [FIXTURES / f"llm036_grown_{n}.db" for n in (1, 2, 3)]


def test_a_trees_source_id_is_its_first_message_whatever_thread_is_newest() -> None:
    ids = [next(iter(llm.read(step))).source_id for step in STEPS]
    assert ids[0] is not None and ids == [ids[0]] * 3


def test_importing_a_growing_logs_db_again_continues_one_conversation(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        added = []
        for step in [*STEPS, STEPS[-1]]:
            report = import_paths(store, [step])
            assert report.errors == [] and len(report.conversations) == 1
            outcome = report.conversations[0]
            assert outcome.notes == [], outcome.notes
            added.append((outcome.conversation_id, outcome.added))
        assert added == [(1, 2), (1, 1), (1, 2), (1, 0)]
        assert [c.message_count for c in store.conversations()] == [5]


def test_a_conversation_an_earlier_version_named_by_its_thread_is_found(tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        import_paths(store, [STEPS[0]])
        thread = next(iter(llm.read(STEPS[0]))).source_aliases[0]
        store.transact(lambda c: c.execute("UPDATE conversations SET source_id = ?", (thread,)))
        report = import_paths(store, [STEPS[1]])
        assert [(o.conversation_id, o.added, o.already_present)
                for o in report.conversations] == [(1, 1, 2)]
        (sid,) = store.reader.execute("SELECT source_id FROM conversations").fetchone()
        assert sid == next(iter(llm.read(STEPS[1]))).source_id  # named the new way from now on
