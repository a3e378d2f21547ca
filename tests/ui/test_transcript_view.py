"""The transcript is virtual: a 5,000-message path opens with a bounded number of cards,
its skeleton and content are read off the main thread, and only near the viewport (V2)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import chat_turn, tool_turn
from PySide6.QtCore import QEvent, QThreadPool, QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from transcript_helpers import load, settle

from explorer.store import Store
from explorer.store.reads_path import FOLD_CHARS
from explorer.tree.model import Part, text_message
from explorer.ui.transcript import TranscriptView, fetching
from explorer.ui.transcript.cards import Card, MessageCard
from explorer.ui.transcript.slim_cards import PendingCard

PATH_LENGTH = 5000
MAX_CARDS = 200


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, int]]:
    """One conversation whose active path has 5,000 messages, written in five big turns."""
    store = Store(tmp_path_factory.mktemp("big") / "big.db")
    conv = store.create_conversation("long session")
    for k in range(5):
        messages = [m for n in range(250) for m in tool_turn(k * 250 + n, error=n % 40 == 0)]
        store.append_turn(conv, messages)
    yield store, conv
    store.close()


def open_view(qtbot: QtBot, store: Store, conv: int, height: int = 800) -> TranscriptView:
    view = TranscriptView(store)
    qtbot.addWidget(view)
    view.resize(900, height)
    view.show()
    load(qtbot, view, conv)
    return view


def cards_in_viewport(view: TranscriptView) -> list[Card]:
    """Every card widget that still exists, once dropped cards have really been deleted."""
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    found = view.viewport().findChildren(Card)
    assert len(found) == len(view.live_cards())
    return found


def test_a_5000_message_path_opens_with_a_bounded_number_of_cards(
    qtbot: QtBot, big: tuple[Store, int]
) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    ids = view.message_ids()
    assert len(ids) == PATH_LENGTH
    assert len(view.rows) == PATH_LENGTH
    built = cards_in_viewport(view)
    assert 0 < len(built) < MAX_CARDS
    assert view.card_for(ids[0]) is not None
    assert view.card_for(ids[-1]) is None, "the end is a placeholder until it is near"
    assert view.verticalScrollBar().maximum() > 100 * view.viewport().height()


def test_scrolling_to_the_end_builds_the_cards_there_and_drops_the_start(
    qtbot: QtBot, big: tuple[Store, int]
) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    ids = view.message_ids()
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())
    settle(qtbot, view)
    last = view.card_for(ids[-1])
    assert isinstance(last, MessageCard)
    assert last.message.text == "answer 1249"
    assert last.isVisible()
    assert last.geometry().bottom() <= view.viewport().height()
    assert last.geometry().top() >= 0
    assert view.card_for(ids[0]) is None
    assert len(cards_in_viewport(view)) < MAX_CARDS


def test_scrolling_through_in_steps_keeps_the_card_count_bounded(
    qtbot: QtBot, big: tuple[Store, int]
) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    bar = view.verticalScrollBar()
    most = 0
    for _ in range(25):
        bar.setValue(bar.value() + 3 * view.viewport().height())
        most = max(most, len(cards_in_viewport(view)))
    assert most < MAX_CARDS
    visible = [c for c in view.live_cards() if 0 <= c.geometry().top() < view.viewport().height()]
    assert visible, "cards exist where the reader is"


def test_scroll_to_builds_the_target_at_the_top(qtbot: QtBot, big: tuple[Store, int]) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    target = view.message_ids()[2503]
    view.scroll_to(target)
    settle(qtbot, view)
    card = view.card_for(target)
    assert card is not None
    assert card.geometry().top() == 10
    assert isinstance(card, MessageCard) and card.message.text == "answer 625"


def test_select_scrolls_to_the_message_and_emits(qtbot: QtBot, big: tuple[Store, int]) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    target = view.message_ids()[4000]
    with qtbot.waitSignal(view.messageSelected, timeout=1000) as blocker:
        view.select(target)
    assert blocker.args == [target]
    card = view.card_for(target)
    assert card is not None and card.selected
    assert view.selected() == target


def test_selection_survives_its_card_being_rebuilt(qtbot: QtBot, big: tuple[Store, int]) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    target = view.message_ids()[5]
    view.select(target)
    view.scroll_to_end()
    assert view.card_for(target) is None
    view.scroll_to(target)
    rebuilt = view.card_for(target)
    assert rebuilt is not None and rebuilt.selected


def test_an_unknown_message_is_a_clear_error(qtbot: QtBot, big: tuple[Store, int]) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    with pytest.raises(KeyError, match="not on the shown path"):
        view.scroll_to(10**9)


def test_reloading_after_a_sibling_switch_keeps_the_reader_in_place(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with Store(tmp_path / "s.db") as store:
        conv = store.create_conversation("switch")
        for n in range(30):
            store.append_turn(conv, chat_turn(n))
        tip = store.conversation(conv).tip_id
        assert tip is not None
        path = store.path_ids(tip)
        regenerated = store.append_turn(conv, chat_turn(99)[1:], parent_id=path[-2])
        view = open_view(qtbot, store, conv, height=400)
        view.scroll_to(path[40])
        top_before = view.card_for(path[40])
        assert top_before is not None and top_before.geometry().top() == 10
        assert view.message_ids()[-1] == regenerated[0]
        settle(qtbot, view)
        store.branch(conv, path[-1])
        load(qtbot, view, conv)
        assert view.message_ids()[-1] == path[-1]
        after = view.card_for(path[40])
        assert after is not None and after.geometry().top() == 10


def test_no_timer_or_thread_is_left_running(qtbot: QtBot, big: tuple[Store, int]) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    view.scroll_to_end()
    view.select(view.message_ids()[-3])
    settle(qtbot, view)
    # Settled, the view runs nothing but the wait to keep the long path it read.
    assert [t for t in view.findChildren(QTimer) if t.isActive()] == [view.keeper.timer]
    assert QThreadPool.globalInstance().activeThreadCount() == 0
    view.shutdown()
    assert [t for t in view.findChildren(QTimer) if t.isActive()] == []


def test_an_empty_conversation_shows_a_hint_and_no_cards(qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "e.db") as store:
        conv = store.create_conversation("empty")
        view = open_view(qtbot, store, conv)
        assert view.rows == []
        assert cards_in_viewport(view) == []
        assert view.verticalScrollBar().maximum() == 0
        assert not view.grab().isNull()


def test_V2_load_path_returns_before_anything_is_read(qtbot: QtBot, big: tuple[Store, int]) -> None:
    store, conv = big
    view = TranscriptView(store)
    qtbot.addWidget(view)
    view.resize(900, 800)
    view.show()
    with qtbot.waitSignal(view.loaded, timeout=10_000) as blocker:
        view.load_path(conv)
        assert view.rows == [] and view.is_loading, "nothing is read on the caller's thread"
    assert blocker.args == [conv] and len(view.message_ids()) == PATH_LENGTH
    settle(qtbot, view)


def test_V2_only_rows_near_the_viewport_have_content(qtbot: QtBot, big: tuple[Store, int]) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    read = [r for r in view.rows if r.message is not None]
    assert 0 < len(read) < MAX_CARDS
    assert all(r.entry is not None for r in view.rows if r.marker is None)


def test_V2_a_jump_is_immediate_and_content_follows(qtbot: QtBot, big: tuple[Store, int]) -> None:
    store, conv = big
    view = open_view(qtbot, store, conv)
    target = view.message_ids()[3333]
    view.scroll_to(target)
    placeholder = view.card_for(target)
    assert isinstance(placeholder, PendingCard), "the row is there before its content"
    assert placeholder.geometry().top() == 10 and placeholder.entry.preview
    settle(qtbot, view)
    card = view.card_for(target)
    assert isinstance(card, MessageCard) and card.message.id == target


def test_V2_content_far_behind_is_let_go(
    qtbot: QtBot, big: tuple[Store, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fetching, "CACHED_ROWS", 60)
    store, conv = big
    view = open_view(qtbot, store, conv)
    ids = view.message_ids()
    for k in range(1, 6):
        view.scroll_to(ids[k * 900])
        settle(qtbot, view)
    held = sum(1 for r in view.rows if r.message is not None)
    assert 0 < held <= 60 + MAX_CARDS
    assert view.rows[0].message is None, "the start was let go"
    assert isinstance(view.card_for(ids[4500]), MessageCard), "what is shown keeps its content"


def test_V2_a_huge_part_is_folded_with_its_size_and_opens_whole(
    qtbot: QtBot, tmp_path: Path
) -> None:
    paste = "".join(f"line {i:07d} of a pasted log\n" for i in range(40_000))
    assert len(paste) > 20 * FOLD_CHARS
    with Store(tmp_path / "huge.db") as store:
        conv = store.create_conversation("paste")
        store.append_turn(conv, [text_message(1, None, "user", "look at this"),
                                 text_message(2, 1, "assistant", "ok")])
        huge = text_message(3, 2, "user", "here is the log:")
        huge.parts.append(Part("text", paste))
        store.append_turn(conv, [huge, text_message(4, 3, "assistant", "seen")])
        view = open_view(qtbot, store, conv)
        mid = view.message_ids()[2]
        card = view.card_for(mid)
        assert isinstance(card, MessageCard)
        assert len(card.message.parts[1].text) == FOLD_CHARS, "only the head was read"
        [note] = card.folded
        assert note.total == len(paste) and "1.2 M characters" in note.label.text()
        with qtbot.waitSignal(view.content.unfolds.finished, timeout=10_000):
            note.button.click()
        assert view.long_text is not None
        dialog = view.long_text
        qtbot.waitUntil(lambda: dialog.fill.done, timeout=10_000)
        assert view.long_text.view.toPlainText() == paste.rstrip("\n") or \
            view.long_text.view.toPlainText() == paste
        view.long_text.close()
