"""SillyTavern chats: the corpus's chats, swipes as sibling answers, damaged lines, fuzz."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from core.formats.pi.test_pi_fuzz import mutate_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.formats import sillytavern
from explorer.formats.base import FormatError, ImportedConversation
from explorer.tree.paths import children_map, message_path

FOLDER = Path("exports") / "sillytavern"
SAMPLE = FOLDER / "Ferro - 2023-11-14@22h13m10s.jsonl"  # a greeting only, older dates
SWIPES = FOLDER / "Nonna Rosa - 2024-05-05@22h11m35s.jsonl"


def _one(path: Path) -> ImportedConversation:
    convs = list(sillytavern.read(path))
    assert len(convs) == 1
    return convs[0]


def _write(tmp_path: Path, records: list[Any]) -> Path:
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records))
    return path


def test_sample_header_and_greeting(corpus_dir: Path) -> None:
    path = corpus_dir / SAMPLE
    assert not path.read_bytes().endswith(b"\n")
    conv = _one(path)
    [greeting] = conv.messages
    assert greeting.role == "assistant" and greeting.parent_id is None
    assert greeting.text.startswith("*The lighthouse keeper looks up from his logbook.*")
    assert greeting.created_at == pytest.approx(1700000000.0)  # epoch milliseconds
    assert greeting.source_meta["name"] == "Ferro"
    assert conv.title == "Chat with Ferro" and conv.meta["user_name"] == "You"
    assert conv.created_at == pytest.approx(1699999990.0)
    assert conv.tip == greeting.id and conv.notes == [] and not conv.ignored_records


def test_sample_swipes_narrator_and_date_forms(corpus_dir: Path) -> None:
    conv = _one(corpus_dir / SWIPES)
    assert conv.title == "Chat with Nonna Rosa" and conv.meta["user_name"] == "Giulia"
    assert conv.meta["chat_metadata"]["note_interval"] == 1
    assert conv.created_at == pytest.approx(1714947095.0)  # "2024-05-05@22h11m35s"
    assert len(conv.messages) == 7 and conv.notes == [] and not conv.ignored_records
    prompt = next(m for m in conv.messages if m.text == "No nonna, cosa cucini stasera?")
    answers = [m for m in conv.messages if m.parent_id == prompt.id]
    assert [(m.text[:8], m.source_meta["swipe_index"]) for m in answers] == [
        ("Pasta e ", 0), ("Lasagne,", 1), ("Risotto ", 2)]
    assert [m.created_at for m in answers] == [1714947150.0, 1714947180.0, 1714947200.0]
    path = message_path({m.id: m for m in conv.messages}, conv.tip)
    assert [(m.role, m.text) for m in path] == [
        ("assistant", "Ciao tesoro! Hai già mangiato?"),
        ("user", "No nonna, cosa cucini stasera?"),
        ("assistant", "Lasagne, come ogni domenica!"),
        ("system", "*Il profumo riempie la cucina.*"),
        ("user", "Arrivo subito!"),
    ]
    assert path[2].model == "gpt-4o-mini" and path[2].source_meta["extra"]["api"] == "openai"
    assert [m.created_at for m in path] == [  # "May 5, 2024 10:11pm", …, ISO, "…@22h15m02s"
        1714947060.0, 1714947120.0, 1714947180.0, 1714947240.0, 1714947302.0]
    assert path[3].source_meta["name"] == "Narratore" and path[3].source_meta["is_system"]


HEADER = {"user_name": "Me", "character_name": "Bot", "create_date": "2024-05-05@22h11m35s",
          "chat_metadata": {}}
SWIPED = [
    HEADER,
    {"name": "Me", "is_user": True, "is_system": False, "send_date": "May 5, 2024 10:12pm",
     "mes": "tell a joke"},
    {"name": "Bot", "is_user": False, "send_date": 1714947200000, "mes": "joke B",
     "swipes": ["joke A", "joke B", "joke C"], "swipe_id": 1,
     "swipe_info": [{"send_date": 1714947100000}, {"send_date": 1714947200000}, {}],
     "extra": {"api": "openai", "model": "gpt-x"}},
    {"name": "Me", "is_user": True, "send_date": "2024-05-05T22:14:00Z", "mes": "ha"},
]


def test_swipes_become_sibling_answers(tmp_path: Path) -> None:
    conv = _one(_write(tmp_path, SWIPED))
    prompt = conv.messages[0]
    answers = children_map(conv.messages)[prompt.id]
    assert [m.text for m in conv.messages if m.id in answers] == ["joke A", "joke B", "joke C"]
    path = message_path({m.id: m for m in conv.messages}, conv.tip)
    # The chosen swipe (swipe_id 1) is the one the chat continues from.
    assert [m.text for m in path] == ["tell a joke", "joke B", "ha"]
    chosen = path[1]
    assert chosen.model == "gpt-x" and chosen.source_meta["swipe_index"] == 1
    other = next(m for m in conv.messages if m.text == "joke A")
    assert other.created_at == pytest.approx(1714947100.0)
    assert other.source_meta["name"] == "Bot"


def test_date_forms(tmp_path: Path) -> None:
    conv = _one(_write(tmp_path, SWIPED))
    assert conv.created_at == pytest.approx(1714947095.0)  # 2024-05-05 22:11:35 UTC
    assert conv.messages[0].created_at == pytest.approx(1714947120.0)  # "May 5, 2024 10:12pm"
    assert conv.messages[-1].created_at == pytest.approx(1714947240.0)


def test_bad_swipe_id_keeps_the_shown_text_on_the_path(tmp_path: Path) -> None:
    records = [HEADER, {**SWIPED[2], "swipe_id": 7, "mes": "joke C"}]
    conv = _one(_write(tmp_path, records))
    assert len(conv.messages) == 3
    assert next(m for m in conv.messages if m.id == conv.tip).text == "joke C"
    assert any("swipe_id 7" in n for n in conv.notes)


def test_damaged_lines_are_named(tmp_path: Path) -> None:
    records = [HEADER, SWIPED[1], "[1]", '{"unrelated": true}', "{broken", SWIPED[3],
               '{"mes": "cut']
    conv = _one(_write(tmp_path, records))
    assert [m.text for m in conv.messages] == ["tell a joke", "ha"]
    assert conv.ignored_records == {"<not a message>": 1}
    notes = " ".join(conv.notes)
    for line in ("line 3", "line 4", "line 5", "line 7"):
        assert line in notes
    assert conv.messages[1].parent_id == conv.messages[0].id


def test_headerless_chat_and_empty_file(tmp_path: Path) -> None:
    conv = _one(_write(tmp_path, SWIPED[1:2]))
    assert conv.title == "chat" and len(conv.messages) == 1
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(FormatError):
        list(sillytavern.read(empty))


def test_sniff(corpus_dir: Path, tmp_path: Path) -> None:
    assert sillytavern.sniff(corpus_dir / SAMPLE)
    assert sillytavern.sniff(corpus_dir / SWIPES)
    assert sillytavern.sniff(_write(tmp_path, SWIPED))
    others = [p for p in sorted((corpus_dir / "exports").rglob("*"))
              if p.is_file() and p.parent.name != "sillytavern"]
    others += sorted((corpus_dir / "codex").rglob("*.jsonl"))
    assert len(others) >= 8
    for path in others:
        assert not sillytavern.sniff(path), path
    text = tmp_path / "t.txt"
    text.write_text("user_name character_name")
    assert not sillytavern.sniff(text)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_chats_read_or_raise_format_error(
    data: st.DataObject, corpus_dir: Path, tmp_path: Path
) -> None:
    lines = (corpus_dir / SWIPES).read_text().splitlines() + [json.dumps(r) for r in SWIPED]
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(mutate_lines(data, lines)))
    try:
        convs = list(sillytavern.read(path))
    except FormatError:
        return
    for conv in convs:
        assert conv.tip is None or conv.tip in {m.id for m in conv.messages}
