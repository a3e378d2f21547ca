"""The transcript shows the tools' own records (a skill expansion, an interruption, a
compaction marker and its summary) apart from the conversation: a dashed, faint card
named for what the record is, its text muted and long text folded."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QPalette
from pytestqt.qtbot import QtBot
from transcript_helpers import load, settle

from explorer.app.importing.run import import_paths
from explorer.store import Store
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.cards import MessageCard

FIXTURE = (Path(__file__).parents[1] / "core" / "formats" / "claude_code" / "fixtures"
           / "tool_records.jsonl")


def _cards(qtbot: QtBot, tmp_path: Path) -> tuple[Store, TranscriptView, dict[str, MessageCard]]:
    store = Store(tmp_path / "t.db")
    import_paths(store, [FIXTURE])
    (conv,) = store.conversations()
    view = TranscriptView(store)
    qtbot.addWidget(view)
    view.resize(900, 2400)  # every card of the short session at once
    view.show()
    load(qtbot, view, conv.id)
    settle(qtbot, view)
    by_source = {m.id: str(m.source_id) for m in store.path(conv.id)}
    cards = {by_source[c.mid]: c for c in view.live_cards() if isinstance(c, MessageCard)}
    return store, view, cards


def test_tool_records_are_dashed_faint_cards_named_for_what_they_are(
        qtbot: QtBot, tmp_path: Path) -> None:
    store, view, cards = _cards(qtbot, tmp_path)
    try:
        assert set(cards) >= {"u1", "m1", "i1", "b1", "s1", "u3"}
        records = {k: c for k, c in cards.items() if c.meta is not None}
        assert {k: c.header.text("role") for k, c in records.items()} == {
            "m1": "Claude Code note", "i1": "Interrupted",
            "b1": "Compaction marker (manual, 155,000 tokens before)",
            "s1": "Compaction summary"}
        for card in records.values():
            assert card.dashed and card.texts == []  # no markdown body: muted text instead
            role = card.header.find("role")
            assert role is not None and role.tone == QPalette.ColorRole.PlaceholderText
            assert card.meta_texts and all(
                t.label.foregroundRole() == QPalette.ColorRole.PlaceholderText
                for t in card.meta_texts)
            assert card.meta is not None and card.tooltip(role) == card.meta.explain
        for key in ("u1", "u3"):
            prompt = cards[key]
            assert prompt.meta is None and not prompt.dashed
            assert prompt.header.text("role") == "User" and prompt.texts
    finally:
        view.shutdown()
        store.close()


def test_a_long_tool_record_is_folded_and_unfolds_on_request(
        qtbot: QtBot, tmp_path: Path) -> None:
    store, view, cards = _cards(qtbot, tmp_path)
    try:
        (skill,) = cards["m1"].meta_texts
        assert skill.hidden_lines > 0 and skill.more.isVisible()
        assert skill.label.text().startswith("Base directory for this skill")
        assert "Step 10" not in skill.label.text()
        before = skill.label.sizeHint().height()
        skill.more.click()
        settle(qtbot, view)
        assert "10. Step 10 of the checklist." in skill.label.text()
        assert not skill.more.isVisible() and skill.label.sizeHint().height() > before
    finally:
        view.shutdown()
        store.close()
