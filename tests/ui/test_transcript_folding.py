"""Long parts (V2): a first screenful in the card, the whole text in place on request."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from transcript_helpers import settle, shown_view

from explorer.store import Store
from explorer.tree.model import Message, Part, text_message
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.transcript.folding import (
    SCREEN_CHARS,
    SLICE_CHARS,
    LongTextDialog,
    WholeText,
    first_screenful,
)
from explorer.ui.transcript.parts import ToolResultBlock
from explorer.ui.transcript.text_view import TextView

PASTE = "".join(f"line {i:06d} of a pasted build log, with some words after it\n"
                for i in range(3_300))  # a little over 200,000 characters


def open_view(qtbot: QtBot, store: Store, conv: int) -> TranscriptView:
    return shown_view(qtbot, store, conv, 900, 800)


def pasted(store: Store, tail: int = 0) -> int:
    """A conversation whose third message carries PASTE, then ``tail`` more short messages."""
    conv = store.create_conversation("paste")
    store.append_turn(conv, [text_message(1, None, "user", "look at this"),
                             text_message(2, 1, "assistant", "ok")])
    huge = text_message(3, 2, "user", "here is the log:")
    huge.parts.append(Part("text", PASTE))
    store.append_turn(conv, [huge, text_message(4, 3, "assistant", "seen")])
    for k in range(tail):
        store.append_turn(conv, [text_message(5 + k, 4 + k, "user", f"more {k}\n\n" * 8)])
    return conv


def paste_card(view: TranscriptView) -> MessageCard:
    card = view.card_for(view.message_ids()[2])
    assert isinstance(card, MessageCard)
    return card


def show_all(qtbot: QtBot, view: TranscriptView, card: MessageCard) -> WholeText:
    note = card.notes[1]
    note.show_all.click()
    assert not note.show_all.isEnabled(), "it says the rest is being read"
    qtbot.waitUntil(lambda: 1 in card.wholes and card.wholes[1].is_filled, timeout=10_000)
    settle(qtbot, view)
    return card.wholes[1]


def test_V2_first_screenful_ends_at_a_line_boundary() -> None:
    head = first_screenful(PASTE)
    assert len(head) <= SCREEN_CHARS and PASTE.startswith(head)
    assert PASTE[len(head)] == "\n", "cut where a line ends"
    words = "word " * 2_000
    assert first_screenful(words).endswith("word") and len(first_screenful(words)) <= SCREEN_CHARS
    assert first_screenful("x" * 9_000) == "x" * SCREEN_CHARS, "no break: cut at the limit"
    assert first_screenful("short\ntext") == "short\ntext"


def test_V2_a_200k_part_shows_its_first_screenful_until_show_all_then_all_of_it(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with Store(tmp_path / "paste.db") as store:
        view = open_view(qtbot, store, pasted(store))
        card = paste_card(view)
        head = card.part_widgets[1]
        assert isinstance(head, TextView)
        shown = head.toPlainText()
        assert len(shown) <= SCREEN_CHARS and shown.endswith(
            "line 000049 of a pasted build log, with some words after it"), "whole lines"
        assert "line 000050" not in shown
        note = card.notes[1]
        assert f"{len(PASTE):,} characters" in note.show_all.toolTip()
        assert card.wholes == {} and not card.findChildren(WholeText)
        whole = show_all(qtbot, view, card)
        assert whole.toPlainText() == PASTE, "the whole text, exactly"
        assert head.isHidden(), "the first screenful is not shown twice"
        assert 400 < whole.height() <= 560 and whole.isVisible(), "bounded, and it scrolls"
        assert view.heights[2] == card.height() >= whole.height() + 40, "the row grew with it"
        whole.selectAll()
        whole.copy()
        assert QApplication.clipboard().text() == PASTE, "copyable whole"
        note.show_all.click()  # "Show less"
        assert card.wholes == {} and not head.isHidden()
        assert (3, 1) not in view.whole_texts


def test_V2_a_part_shown_whole_stays_whole_when_its_card_is_built_again(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with Store(tmp_path / "paste.db") as store:
        view = open_view(qtbot, store, pasted(store, tail=60))
        view.scroll_to(view.message_ids()[2])
        settle(qtbot, view)
        first = paste_card(view)
        show_all(qtbot, view, first)
        view.scroll_to_end()
        settle(qtbot, view)
        view.scroll_to(view.message_ids()[2])
        settle(qtbot, view)
        again = paste_card(view)
        assert again is not first, "the card was let go and built again"
        qtbot.waitUntil(lambda: 1 in again.wholes and again.wholes[1].is_filled)
        assert again.wholes[1].toPlainText() == PASTE


def test_V2_a_long_tool_output_shows_whole_in_monospace_in_place_of_its_first_lines(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with Store(tmp_path / "tool.db") as store:
        conv = store.create_conversation("tool")
        store.append_turn(conv, [
            text_message(1, None, "user", "build it"),
            Message(2, 1, "assistant", [Part("tool_use", '{"command": "make"}', tool_name="Bash",
                                             tool_use_id="t1")]),
            Message(3, 2, "user", [Part("tool_result", PASTE, tool_use_id="t1")]),
        ])
        view = open_view(qtbot, store, conv)
        card = view.card_for(view.message_ids()[2])
        assert isinstance(card, MessageCard)
        [block] = card.results
        assert isinstance(block, ToolResultBlock)
        assert len(block.output.toPlainText()) <= SCREEN_CHARS + 40
        note = card.notes[0]
        note.show_all.click()
        qtbot.waitUntil(lambda: 0 in card.wholes and card.wholes[0].is_filled, timeout=10_000)
        settle(qtbot, view)
        whole = card.wholes[0]
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
        assert whole.toPlainText() == PASTE and whole.font().family() == fixed
        assert block.output.isHidden() and block.caption.isVisible(), "its title stays"


def test_V2_the_long_text_window_opens_at_once_and_fills_a_slice_per_turn(
        qtbot: QtBot) -> None:
    text = "".join(f"{i:08d} a pasted log line that goes on for a while\n" for i in range(20_000))
    dialog = LongTextDialog("a long part", text, None)
    qtbot.addWidget(dialog)
    assert len(dialog.view.toPlainText()) == SLICE_CHARS  # one slice in the first turn
    assert not dialog.fill.done
    with qtbot.waitSignal(dialog.fill.filled, timeout=20_000):
        pass
    assert dialog.view.toPlainText() in (text, text.rstrip("\n"))
