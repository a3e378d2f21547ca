"""T5: a native export merges with its own source conversation by id, in any database
that holds it: nothing is added twice, no second root appears, and the tip moves only
when the import brings the conversation further."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import chat_turn

from explorer.app.importing import run as importing
from explorer.app.importing.demo import load_demo
from explorer.app.sharing import exporting
from explorer.cli.main import main
from explorer.store import Store


def roots(store: Store, conv: int) -> int:
    return sum(1 for n in store.skeleton(conv) if n.parent_id is None)


def test_T5_the_demo_exported_from_one_database_merges_into_anothers_demo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's steps, through the command: demo into A, export 1, demo into B, import."""
    a, b, export = (str(tmp_path / n) for n in ("A.db", "B.db", "one.jsonl"))
    assert main(["--db", a, "demo"]) == 0
    assert main(["--db", a, "export", "1", "-o", export]) == 0
    assert main(["--db", b, "demo"]) == 0
    with Store(b) as s:
        before = (s.conversation(1).tip_id, s.conversation(1).message_count, roots(s, 1))
    capsys.readouterr()
    assert main(["--db", b, "import", export]) == 0
    assert "0 added, 24 already present" in capsys.readouterr().out
    with Store(b) as s:
        assert (s.conversation(1).tip_id, s.conversation(1).message_count,
                roots(s, 1)) == before
        assert len(s.conversations()) == 2


def test_T5_an_export_comes_home_with_only_what_was_added_elsewhere(tmp_path: Path) -> None:
    """A conversation made in A, continued in B, exported from B and imported into A."""
    with Store(tmp_path / "A.db") as a:
        conv = a.create_conversation("made here")
        for n in range(2):
            a.append_turn(conv, chat_turn(n))
        exporting.export_to_file(a, conv, tmp_path / "a.jsonl")
    with Store(tmp_path / "B.db") as b:
        [outcome] = importing.import_paths(b, [tmp_path / "a.jsonl"]).conversations
        b.append_turn(outcome.conversation_id, chat_turn(2))
        exporting.export_to_file(b, outcome.conversation_id, tmp_path / "b.jsonl")
    with Store(tmp_path / "A.db") as a:
        report = importing.import_paths(a, [tmp_path / "b.jsonl"])
        [back] = report.conversations
        assert (back.conversation_id, back.added, back.already_present) == (conv, 2, 4)
        assert len(a.conversations()) == 1 and roots(a, conv) == 1
        path = a.path(conv)
        assert [m.text for m in path][-2:] == ["prompt 2", "answer 2"]
        assert a.conversation(conv).tip_id == path[-1].id


def test_T5_reimporting_an_older_export_keeps_the_tip(tmp_path: Path) -> None:
    with Store(tmp_path / "A.db") as a:
        conv = load_demo(a)
        exporting.export_to_file(a, conv, tmp_path / "d.jsonl")
        first_answer = a.path(conv)[2].id
        assert first_answer is not None
        a.branch(conv, first_answer)
        [again] = importing.import_paths(a, [tmp_path / "d.jsonl"]).conversations
        assert again.added == 0
        assert a.conversation(conv).tip_id == first_answer
