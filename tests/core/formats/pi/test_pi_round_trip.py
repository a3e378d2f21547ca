"""pi: errored and aborted turns show their reason, and an export keeps the session
name and every non-message entry (fixture: fixtures/entries_and_errors.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.formats import pi
from explorer.formats.base import ImportedConversation
from explorer.formats.exporters import EXPORTERS
from explorer.tree.paths import message_path

FIXTURE = Path(__file__).parent / "fixtures" / "entries_and_errors.jsonl"


def _read(path: Path) -> ImportedConversation:
    (conv,) = list(pi.read(path))
    return conv


def _export(conv: ImportedConversation, tmp_path: Path, notes: list[str]) -> Path:
    header = {"title": conv.title, "created_at": conv.created_at, "meta": conv.meta}
    out = tmp_path / "exported.jsonl"
    text = "\n".join(EXPORTERS["pi"].lines(header, conv.messages, conv.tip, notes))
    out.write_text(text + "\n", encoding="utf-8")
    return out


def _texts(conv: ImportedConversation) -> list[str]:
    path = message_path({m.id: m for m in conv.messages}, conv.tip)
    return [m.text for m in path]


def test_pi_errored_and_aborted_turns_show_their_reason() -> None:
    conv = _read(FIXTURE)
    by_id = {m.id: m for m in conv.messages}
    assert by_id["m2"].text == "[Error: 529 overloaded_error: Overloaded]"
    assert by_id["m6"].text == "Applying\n[Aborted]"
    assert by_id["m4"].text == "The build fails because of a missing import."


def test_pi_round_trip_keeps_the_session_name_and_every_entry(tmp_path: Path) -> None:
    first = _read(FIXTURE)
    notes: list[str] = []
    exported = _export(first, tmp_path, notes)
    records = [json.loads(line) for line in exported.read_text().splitlines()]
    types = [r["type"] for r in records]
    assert types.count("session_info") == 1
    for kept in ("model_change", "thinking_level_change", "label", "compaction", "custom"):
        assert kept in types, kept
    ids = {r.get("id") for r in records}
    compaction = next(r for r in records if r["type"] == "compaction")
    label = next(r for r in records if r["type"] == "label")
    assert compaction["firstKeptEntryId"] in ids and label["targetId"] in ids
    errored = [r["message"] for r in records if r["type"] == "message"
               and r["message"].get("stopReason") in ("error", "aborted")]
    assert [(m["stopReason"], m.get("errorMessage")) for m in errored] == [
        ("error", "529 overloaded_error: Overloaded"), ("aborted", None)]
    assert all("[Error" not in json.dumps(m["content"]) for m in errored)

    second = _read(exported)
    assert second.title == first.title == "Build repair"
    assert _texts(second) == _texts(first)
    assert second.meta["model_changes"] == first.meta["model_changes"]
    assert second.meta["thinking_levels"] == first.meta["thinking_levels"]
    assert [(c.kind, c.summary) for c in second.compactions] == [
        (c.kind, c.summary) for c in first.compactions]
    by_first = {m.id: m.text for m in first.messages}
    by_second = {m.id: m.text for m in second.messages}
    assert by_second[second.context_start] == by_first[first.context_start] == "Try again"
    assert [(c.label, by_second[c.message_key]) for c in second.checkpoints] == [
        (c.label, by_first[c.message_key]) for c in first.checkpoints]
    assert second.ignored_records == first.ignored_records


def test_pi_export_of_an_empty_path_is_readable_and_says_so(tmp_path: Path) -> None:
    notes: list[str] = []
    out = tmp_path / "empty.jsonl"
    out.write_text("\n".join(EXPORTERS["pi"].lines({"title": "Nothing yet"}, [], None, notes))
                   + "\n", encoding="utf-8")
    assert any("no messages" in n for n in notes)
    back = _read(out)
    assert back.title == "Nothing yet" and back.messages == []
