"""Tending the demo tree from the command line: what changed, markers, refusals, undo (T6–T8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli.main import main
from tests.helpers import run_cli as run


def js(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> dict[str, object]:
    code, out, err = run(capsys, db, *args, "--json")
    assert code == 0, err
    loaded: dict[str, object] = json.loads(out)
    return loaded


def test_T6_archive_folds_into_a_marker_and_all_unfolds(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change = js(capsys, db, "archive", "8")
    assert change["kind"] == "archive" and change["changed"] == {"archived": [8], "messages": 4}
    _, tree, _ = run(capsys, db, "tree", "1")
    assert "1 archived branch (4 messages)" in tree
    assert not any(line.split()[1:2] == ["9"] for line in tree.splitlines())
    _, full, _ = run(capsys, db, "tree", "1", "--all")
    assert " 9 assistant" in full and "archived (unfolded)" in full
    _, shown, _ = run(capsys, db, "show", "1")
    assert "(alternative 1/1 · 1 archived)" in shown
    _, shown_all, _ = run(capsys, db, "show", "1", "--all")
    assert "(alternative 2/2)" in shown_all
    nodes = js(capsys, db, "tree", "1")
    assert nodes["hidden"] == 4 and nodes["markers"] == [
        {"at": 7, "kind": "archived", "roots": [8], "messages": 4, "tombstones": []}]


def test_T6_archiving_the_active_path_is_refused_with_the_reason(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, db, "archive", "12")
    assert code == 1 and "on the active path" in err and err.count("\n") == 1


def test_T7_delete_marks_the_branch_point_and_undo_restores_it(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = js(capsys, db, "tree", "1", "--all")
    change = js(capsys, db, "delete", "8")
    assert change["changed"] == {"deleted": [8, 9, 10, 11], "tombstone": 1, "checkpoints": []}
    _, tree, _ = run(capsys, db, "tree", "1")
    assert "deleted branch — undo (4 messages)" in tree
    assert run(capsys, db, "branch", "1", "9")[2].startswith("convo: error: no message 9")
    undone = js(capsys, db, "undo")
    assert undone["changed"]["restored"] == [8, 9, 10, 11]  # type: ignore[index]
    assert js(capsys, db, "tree", "1", "--all") == before


def test_T7_delete_of_a_checkpoint_target_needs_saying_so(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, db, "branch", "1", "11")[0] == 0
    assert js(capsys, db, "delete", "18")["changed"]["checkpoints"] == []  # type: ignore[index]
    js(capsys, db, "undo")
    assert run(capsys, db, "checkpoint", "1", "dash", "--at", "19")[0] == 0
    code, _, err = run(capsys, db, "delete", "12")
    assert code == 1 and "'dash' (message 19)" in err and "'fixed' (message 17)" in err
    change = js(capsys, db, "delete", "12", "--with-checkpoints")
    assert change["changed"]["checkpoints"] == ["dash", "fixed"]  # type: ignore[index]


def test_T8_star_label_note_history_and_undo_in_reverse(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert js(capsys, db, "star", "23")["changed"] == {"preferred": [12, 20, 23]}
    js(capsys, db, "label", "12", "utf-8 fallback")
    js(capsys, db, "note", "22", "the shorter message reads better")
    nodes = {n["id"]: n for n in js(capsys, db, "tree", "1")["nodes"]}  # type: ignore[attr-defined]
    assert nodes[12]["branch_label"] == "utf-8 fallback" and nodes[23]["preferred"]
    assert nodes[22]["note"] == "the shorter message reads better"
    history = json.loads(run(capsys, db, "history", "--json")[1])
    assert [h["kind"] for h in history] == ["note", "label", "star"]
    assert [js(capsys, db, "undo")["changed"]["undone"]["kind"]  # type: ignore[index]
            for _ in range(3)] == ["note", "label", "star"]
    code, _, err = run(capsys, db, "undo")
    assert code == 1 and "nothing to undo" in err


def test_T8_branch_and_checkpoint_from_the_cli_are_undoable(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, db, "branch", "1", "11")[0] == 0
    assert run(capsys, db, "checkpoint", "1", "chardet")[0] == 0
    assert js(capsys, db, "undo")["changed"]["checkpoint_removed"] == "chardet"  # type: ignore[index]
    assert js(capsys, db, "undo")["changed"]["tip"] == {"from": 11, "to": 24}  # type: ignore[index]


def test_T7_purge_is_final(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    js(capsys, db, "delete", "8")
    purged = js(capsys, db, "purge")
    assert purged["messages"] == 4
    code, out, _ = run(capsys, db, "purge")
    assert "no deleted branches" in out
    code, _, err = run(capsys, db, "undo")
    assert code == 1 and "nothing to undo" in err


def test_export_preferred_and_merge_from_the_cli(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    js(capsys, db, "star", "11")
    _, exported, _ = run(capsys, db, "export", "1", "--preferred", "--format", "markdown")
    assert "chardet reads every file" in exported and "Excel-edited" not in exported
    code, _, err = run(capsys, db, "export", "1", "--preferred", "--at", "3")
    assert code == 1 and "give one" in err
    change = js(capsys, db, "merge", "11", "--into", "24")
    assert change["changed"]["how"] == "digest"  # type: ignore[index]
    _, tree, _ = run(capsys, db, "tree", "1")
    assert "(merged back as" in tree and "(merges the branch ending at 11)" in tree


def test_T8_redo_makes_undone_actions_again_until_a_new_one(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deleted = js(capsys, db, "tree", "1")
    js(capsys, db, "delete", "8")
    after = js(capsys, db, "tree", "1")
    js(capsys, db, "note", "22", "keep")
    assert [js(capsys, db, "undo")["changed"]["undone"]["kind"]  # type: ignore[index]
            for _ in range(2)] == ["note", "delete"]
    assert js(capsys, db, "tree", "1")["nodes"] == js(capsys, db, "tree", "1", "--all")["nodes"]
    redone = js(capsys, db, "redo")
    assert redone["kind"] == "redo" and redone["changed"]["deleted"] == [8, 9, 10, 11]  # type: ignore[index]
    assert js(capsys, db, "tree", "1") == after
    js(capsys, db, "undo")
    assert js(capsys, db, "tree", "1")["markers"] == deleted["markers"] == []
    js(capsys, db, "star", "23")  # a new action: the undone delete and note cannot come back
    code, _, err = run(capsys, db, "redo", "--conversation", "1")
    assert code == 1 and "nothing to redo in conversation 1" in err


def test_T8_a_new_action_in_another_conversation_clears_redo_too(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line of history for the whole file, the one `convo undo` walks: an undone action
    in conversation 1 cannot come back on top of something done since in conversation 2."""
    js(capsys, db, "note", "22", "in one")
    js(capsys, db, "undo")
    other = js(capsys, db, "tree", "2")["nodes"][0]["id"]  # type: ignore[index]
    js(capsys, db, "note", str(other), "in two")
    for scope in ((), ("--conversation", "1")):
        code, _, err = run(capsys, db, "redo", *scope)
        assert code == 1 and "nothing to redo" in err
    assert js(capsys, db, "undo")["changed"]["undone"]["kind"] == "note"  # type: ignore[index]
    assert js(capsys, db, "redo")["changed"]["marks"] == [other]  # type: ignore[index]


def test_T8_the_help_says_what_clears_redo(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["redo", "--help"])
    assert "any new tree action, in any conversation" in " ".join(capsys.readouterr()[0].split())
