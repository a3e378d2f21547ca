"""Lone surrogates are repaired, and one file or conversation that cannot be read or
stored never stops the others (issue: nothing lost on import)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app.importing import plan
from explorer.app.importing import run as importing
from explorer.app.importing.run import ImportReport, import_paths
from explorer.formats import claude_code
from explorer.formats.base import ImportedConversation
from explorer.store import Store
from explorer.tree.model import Message, Part

CUT_EMOJI = '"cut inside an emoji \\ud83d here"'  # the JSON escape JavaScript writes


def _claude_line(uuid: str, session: str, content_json: str) -> str:
    head = {"parentUuid": None, "type": "user", "sessionId": session, "uuid": uuid,
            "timestamp": "2025-04-01T10:00:00.000Z", "message": {"role": "user", "content": 0}}
    return json.dumps(head).replace('"content": 0', f'"content": {content_json}') + "\n"


def _chatgpt(title: str, text_json: str) -> str:
    node = {"id": "m1", "message": {"id": "m1", "author": {"role": "user"},
                                    "content": {"content_type": "text", "parts": ["PLACEHOLDER"]},
                                    "create_time": 1700000000.0}, "parent": None, "children": []}
    conv = {"title": title, "mapping": {"m1": node}, "current_node": "m1", "id": f"c-{title}",
            "create_time": 1700000000.0}
    return json.dumps([conv]).replace('"PLACEHOLDER"', text_json)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "explorer.db")
    yield s
    s.close()


def _texts(store: Store) -> list[str]:
    rows = store.reader.execute("SELECT text FROM parts WHERE kind = 'text' ORDER BY id")
    return [r[0] for r in rows]


def test_lone_surrogate_is_replaced_and_noted_in_every_format(tmp_path: Path,
                                                               store: Store) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "session.jsonl").write_text(_claude_line("u1", "s1", CUT_EMOJI), encoding="utf-8")
    (folder / "conversations.json").write_text(_chatgpt("gpt", CUT_EMOJI), encoding="utf-8")
    report = import_paths(store, [folder])
    assert report.errors == []
    assert len(report.conversations) == 2
    for outcome in report.conversations:
        assert any("lone surrogates" in n and "U+FFFD" in n for n in outcome.notes)
    assert _texts(store) == ["cut inside an emoji \ufffd here"] * 2


def test_a_valid_surrogate_pair_is_kept_as_the_emoji(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_claude_line("u1", "s1", '"smile \\ud83d\\ude00"'), encoding="utf-8")
    report = import_paths(store, [path])
    assert report.conversations[0].notes == []
    assert _texts(store) == ["smile \U0001f600"]


def test_one_bad_file_never_stops_the_others(tmp_path: Path, store: Store,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.jsonl").write_text(_claude_line(f"u-{name}", f"s-{name}",
                                                           f'"file {name}"'), encoding="utf-8")
    real_read = claude_code.read

    def read(path: Path) -> Iterator[ImportedConversation]:
        if path.name == "b.jsonl":
            raise RuntimeError("an importer bug")
        yield from real_read(path)

    monkeypatch.setattr(claude_code, "read", read)
    monkeypatch.setattr(plan, "detect", lambda p: claude_code if p.is_file() else None)
    report = import_paths(store, [folder])
    assert sorted(_texts(store)) == ["file a", "file c"]
    (error,) = report.errors
    assert "b.jsonl: could not be read (RuntimeError: an importer bug)" in error


def test_a_conversation_the_store_cannot_write_is_reported_and_the_batch_kept(
    store: Store,
) -> None:
    def conv(title: str, text: str) -> ImportedConversation:
        return ImportedConversation(title=title, source_format="test", source_id=title,
                                    messages=[Message("k", None, "user", [Part("text", text)])])

    report = ImportReport()
    meter = importing._Meter(0, None)
    batch = importing._Batch(store, report, meter, lambda: False)
    for ic in (conv("one", "fine"), conv("two", "bad \ud83d"), conv("three", "also fine")):
        batch.pending.append(ic)
    batch.flush()
    assert [c.title for c in report.conversations] == ["one", "three"]
    (error,) = report.errors
    assert error.startswith("two: not stored (UnicodeEncodeError")
    assert sorted(_texts(store)) == ["also fine", "fine"]


def test_a_session_whose_lines_escape_no_surrogate_is_not_walked_for_one(tmp_path: Path) -> None:
    """Lines are decoded strictly, so only a ``\\ud8xx`` escape brings a lone surrogate: a
    session without one is known clean (its strings are not walked), one with one is not."""
    plain = tmp_path / "plain.jsonl"
    plain.write_text(_claude_line("u1", "s1", '"no escapes at all"'), encoding="utf-8")
    cut = tmp_path / "cut.jsonl"
    cut.write_text(_claude_line("u1", "s2", CUT_EMOJI), encoding="utf-8")
    pair = tmp_path / "pair.jsonl"  # an emoji escaped as its surrogate pair: nothing lone
    pair.write_text(_claude_line("u1", "s3", '"\\ud83d\\ude00 whole"'), encoding="utf-8")
    [clean] = claude_code.read(plain)
    [escaped] = claude_code.read(cut)
    [paired] = claude_code.read(pair)
    assert clean.no_lone_surrogates and not escaped.no_lone_surrogates
    assert paired.no_lone_surrogates
    assert [p.text for m in paired.messages for p in m.parts] == ["\U0001f600 whole"]
    assert importing.repair_surrogates(clean) == 0
