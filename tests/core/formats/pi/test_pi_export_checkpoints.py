"""pi export writes the conversation's checkpoints as they are in the program now, not the
label entries the session had when it was imported: a checkpoint removed in the program
does not come back in pi, and one set in the program reaches pi as a label."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.app.importing.run import import_paths
from explorer.app.sharing.exporting import export_lines
from explorer.app.tending import tree_actions, undo
from explorer.formats import pi
from explorer.store import Store

FIXTURE = Path(__file__).parent / "fixtures" / "entries_and_errors.jsonl"


def _imported(tmp_path: Path) -> tuple[Store, int]:
    store = Store(tmp_path / "pi.db")
    report = import_paths(store, [FIXTURE])
    assert not report.errors
    (conv,) = store.conversations()
    return store, conv.id


def _labels(store: Store, conv: int, tmp_path: Path, notes: list[str] | None = None
            ) -> dict[str, str]:
    """The labels of the exported file as pi reads them: label -> the message's text."""
    out = tmp_path / "out.jsonl"
    out.write_text("\n".join(export_lines(store, conv, "pi", notes=notes)) + "\n",
                   encoding="utf-8")
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    ids = {r.get("id") for r in records}
    assert all(r["targetId"] in ids for r in records if r["type"] == "label")
    (back,) = list(pi.read(out))
    by_key = {m.id: m.text for m in back.messages}
    return {c.label: by_key[c.message_key] for c in back.checkpoints}


def test_pi_export_writes_the_imported_checkpoint_while_it_exists(tmp_path: Path) -> None:
    store, conv = _imported(tmp_path)
    with store:
        assert _labels(store, conv, tmp_path) == {
            "diagnosed": "The build fails because of a missing import."}


def test_pi_export_leaves_out_a_checkpoint_removed_in_the_program(tmp_path: Path) -> None:
    store, conv = _imported(tmp_path)
    with store:
        plan = store.trim(conv, keep_turns=1)  # the trim drops checkpoints it cuts off
        assert "diagnosed" in plan.dropped_checkpoints
        assert store.checkpoints(conv) == {}
        assert _labels(store, conv, tmp_path) == {}


def test_pi_export_carries_checkpoints_set_and_undone_in_the_program(tmp_path: Path) -> None:
    store, conv = _imported(tmp_path)
    with store:
        tip = store.conversation(conv).tip_id
        assert tip is not None
        tree_actions.checkpoint(store, conv, "applied", tip)
        assert _labels(store, conv, tmp_path) == {
            "diagnosed": "The build fails because of a missing import.",
            "applied": "Applying\n[Aborted]"}
        undo.undo(store, conv)
        assert set(_labels(store, conv, tmp_path)) == {"diagnosed"}


def test_pi_export_names_a_checkpoint_off_the_exported_branch(tmp_path: Path) -> None:
    store, conv = _imported(tmp_path)
    with store:
        path = store.path(conv)
        first_answer = next(m for m in path if m.role == "assistant")
        notes: list[str] = []
        lines = list(export_lines(store, conv, "pi", at=first_answer.id, notes=notes))
        assert not any(json.loads(line)["type"] == "label" for line in lines)
        assert any("'diagnosed' is not on the exported path" in n for n in notes)
