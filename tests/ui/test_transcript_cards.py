"""The transcript of the demo's active path: cards, parts, markers and the sibling switcher."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from transcript_helpers import load, message_cards, settle, tall_view

from explorer.app.importing.demo import load_demo
from explorer.store import Store
from explorer.tree.digest import digest_text
from explorer.tree.model import Message
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.card_words import format_tokens
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.transcript.parts import ImageDialog
from explorer.ui.transcript.slim_cards import MarkerCard


@pytest.fixture
def demo(store: Store) -> int:
    return load_demo(store)


def card_of(view: TranscriptView, mid: int) -> MessageCard:
    card = view.card_for(mid)
    assert isinstance(card, MessageCard)
    return card


def mid_of(m: Message) -> int:
    assert isinstance(m.id, int)
    return m.id


def find(path: list[Message], predicate: object) -> Message:
    assert callable(predicate)
    return next(m for m in path if predicate(m))


def test_one_card_per_message_with_role_model_time_and_tokens(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    view = tall_view(qtbot, store, demo)
    path = store.path(demo)
    cards = message_cards(view)
    assert [c.mid for c in cards] == [m.id for m in path]
    for card, m in zip(cards, path, strict=True):
        expected_role = "Tool" if m.is_tool_result_only else m.role.capitalize()
        assert card.header.text("role") == expected_role
        assert card.header.text("model") == (m.model or "")
        assert card.header.text("tokens") == format_tokens(m.usage)
        assert card.header.text("time").startswith("2026-")
    first_answer = find(path, lambda m: m.usage is not None)
    assert first_answer.usage is not None
    tokens = card_of(view, mid_of(first_answer)).header.text("tokens")
    assert f"in {first_answer.usage.input_tokens:,}" in tokens


def test_thinking_is_collapsed_and_expands_on_click(qtbot: QtBot, store: Store, demo: int) -> None:
    view = tall_view(qtbot, store, demo)
    m = find(store.path(demo), lambda m: any(p.kind == "thinking" for p in m.parts))
    card = card_of(view, mid_of(m))
    block = card.thinking[0]
    assert not block.is_expanded()
    before = card.height()
    QTest.mouseClick(block.toggle, Qt.MouseButton.LeftButton)
    assert block.is_expanded()
    assert block.body is not None
    assert "Start with the job itself" in block.body.toPlainText()
    assert card.height() > before, "the view gave the expanded card its new height"
    QTest.mouseClick(block.toggle, Qt.MouseButton.LeftButton)
    assert not block.is_expanded()


def test_a_failed_tool_result_is_marked_and_others_are_not(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    view = tall_view(qtbot, store, demo)
    results = [r for c in message_cards(view) for r in c.results]
    failed = [r for r in results if r.is_error]
    assert len(failed) == 1
    lines = len(failed[0].output.toPlainText().splitlines())
    assert failed[0].caption.text() == f"✖ Bash failed · {lines} lines"
    assert "UnicodeDecodeError" in failed[0].output.toPlainText()
    assert all("failed" not in r.caption.text() for r in results if not r.is_error)


def test_long_tool_output_is_folded_until_show_all(qtbot: QtBot, store: Store, demo: int) -> None:
    view = tall_view(qtbot, store, demo)
    result = next(r for c in message_cards(view) for r in c.results if r.is_collapsed())
    assert result.expand_button is not None
    assert result.expand_button.text() == "show all 15 lines"
    assert "more lines" in result.output.toPlainText()
    QTest.mouseClick(result.expand_button, Qt.MouseButton.LeftButton)
    assert not result.is_collapsed()
    assert result.output.toPlainText().rstrip().endswith("main(sys.argv[1])")


def test_image_part_is_a_thumbnail_that_opens_full_size(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    view = tall_view(qtbot, store, demo)
    thumb = next(t for c in message_cards(view) for t in c.thumbnails)
    shown = thumb.pixmap()
    assert not shown.isNull()
    assert max(shown.width(), shown.height()) <= 128
    assert thumb.pixmap_full.width() > shown.width()
    QTest.mouseClick(thumb, Qt.MouseButton.LeftButton)
    dialog = thumb.dialog
    assert isinstance(dialog, ImageDialog)
    assert dialog.isVisible()
    assert dialog.image.pixmap().size() == thumb.pixmap_full.size()
    dialog.close()


def test_switcher_at_the_regenerated_answer_shows_2_of_2_and_goes_back(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    view = tall_view(qtbot, store, demo)
    tip = store.path(demo)[-1]
    assert tip.model == "claude-opus-4-1"
    siblings = store.siblings(mid_of(tip))
    assert len(siblings) == 2
    card = card_of(view, mid_of(tip))
    assert card.switcher.text() == card.header.text("place") == "2/2"
    next_button = card.header.find("next")
    assert next_button is not None and not next_button.enabled
    with qtbot.assertNotEmitted(view.siblingChosen):
        QTest.mouseClick(card, Qt.MouseButton.LeftButton, pos=card.item_rect("next").center())
    other = next(s for s in siblings if s != tip.id)
    with qtbot.waitSignal(view.siblingChosen, timeout=1000) as blocker:
        QTest.mouseClick(card, Qt.MouseButton.LeftButton, pos=card.item_rect("previous").center())
    assert blocker.args == [other]


def test_messages_without_alternatives_show_no_switcher(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    view = tall_view(qtbot, store, demo)
    for card in message_cards(view):
        alternatives = len(store.siblings(card.mid)) > 1
        assert card.switcher.visible == alternatives
        assert card.item_rect("previous").isEmpty() != alternatives


def test_C3_rewind_digest_is_shown_where_the_exploration_left(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    view = tall_view(qtbot, store, demo)
    rewind = store.rewinds(demo)[0]
    markers = [c for c in view.live_cards() if isinstance(c, MarkerCard)]
    shown = [c for c in markers if c.marker.kind == "rewind"]
    assert len(shown) == 1
    assert shown[0].mid == rewind["to_message_id"]
    assert shown[0].detail.text() == digest_text(rewind["digest"])
    rows = [r.mid for r in view.rows]
    assert rows.index(rewind["to_message_id"]) + 1 == view.rows.index(
        next(r for r in view.rows if r.marker is not None and r.marker.kind == "rewind"))


def test_C3_the_explored_path_carries_the_digest_at_its_end(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    rewind = store.rewinds(demo)[0]
    view = TranscriptView(store)
    qtbot.addWidget(view)
    view.resize(900, 4000)
    load(qtbot, view, demo, tip=rewind["from_tip_id"])
    last = view.rows[-1]
    assert last.marker is not None and last.marker.kind == "explored"
    assert last.mid == rewind["from_tip_id"]
    assert "diagnosed" in last.marker.title


def test_checkpoint_labels_appear_on_their_cards(qtbot: QtBot, store: Store, demo: int) -> None:
    view = tall_view(qtbot, store, demo)
    for label, mid in store.checkpoints(demo).items():
        assert f"⚑ {label}" in card_of(view, mid).header.texts("checkpoint")


def test_clicking_a_card_selects_it_and_select_emits(qtbot: QtBot, store: Store, demo: int) -> None:
    view = tall_view(qtbot, store, demo)
    ids = view.message_ids()
    with qtbot.waitSignal(view.messageSelected, timeout=1000) as blocker:
        view.select(ids[3])
    assert blocker.args == [ids[3]]
    assert card_of(view, ids[3]).selected
    with qtbot.assertNotEmitted(view.messageSelected):
        view.select(ids[3])
    card = card_of(view, ids[1])
    with qtbot.waitSignal(view.messageSelected, timeout=1000) as blocker:
        QTest.mouseClick(card, Qt.MouseButton.LeftButton, pos=card.item_rect("role").center())
    assert blocker.args == [ids[1]]
    assert card.selected and not card_of(view, ids[3]).selected
    rewound_at = store.rewinds(demo)[0]["to_message_id"]
    view.select(rewound_at)
    selected = [c for c in view.live_cards() if c.selected]
    assert selected == [card_of(view, rewound_at)], "the rewind marker after it is not selected"


def test_right_click_on_a_card_asks_for_the_context_menu(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    view = tall_view(qtbot, store, demo)
    mid = view.message_ids()[2]
    card = card_of(view, mid)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, QPoint(5, 5), QPoint(105, 205))
    with qtbot.waitSignal(view.contextMenuRequested, timeout=1000) as blocker:
        QApplication.sendEvent(card, event)
    assert blocker.args == [mid, QPoint(105, 205)]


def test_right_click_on_message_text_reaches_the_card(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    view = tall_view(qtbot, store, demo)
    mid = view.message_ids()[1]
    text = card_of(view, mid).texts[0]
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, QPoint(3, 3), QPoint(40, 50))
    with qtbot.waitSignal(view.contextMenuRequested, timeout=1000) as blocker:
        QApplication.sendEvent(text.viewport(), event)
    assert blocker.args == [mid, QPoint(40, 50)]


def test_T2_choosing_a_sibling_can_reload_the_path_from_inside_the_click(
    qtbot: QtBot, store: Store, demo: int
) -> None:
    view = tall_view(qtbot, store, demo)
    tip = view.message_ids()[-1]
    other = next(s for s in store.siblings(tip) if s != tip)

    def branch_and_reload(mid: int) -> None:
        store.branch(demo, mid)
        view.load_path(demo)

    view.siblingChosen.connect(branch_and_reload)
    card = card_of(view, tip)
    QTest.mouseClick(card, Qt.MouseButton.LeftButton, pos=card.item_rect("previous").center())
    settle(qtbot, view)
    assert view.message_ids()[-1] == other
    switcher = card_of(view, other).switcher
    assert switcher.text() == "1/2"
    assert card_of(view, other).header.text("model") == "claude-sonnet-4-5"


def test_narrowing_the_view_re_measures_the_cards(qtbot: QtBot, store: Store, demo: int) -> None:
    view = tall_view(qtbot, store, demo)
    card = card_of(view, view.message_ids()[1])
    wide = card.height()
    view.resize(420, 9000)
    QApplication.processEvents()
    assert card.width() == view.viewport().width() - 20
    assert card.height() > wide
    assert card.height() == card.heightForWidth(card.width())


def test_a_nul_in_a_message_shows_as_a_symbol_and_the_text_after_it_stays(
    qtbot: QtBot, store: Store
) -> None:
    from tests.helpers import assistant, user

    conv = store.create_conversation("nul")
    store.append_turn(conv, [user("before\x00after the nul"), assistant("fine")])
    view = tall_view(qtbot, store, conv)
    prompt = message_cards(view)[0]
    shown = " ".join(t.toPlainText() for t in prompt.texts)
    assert "before\u2400after the nul" in shown
    assert store.path(conv)[0].text == "before\x00after the nul"  # the stored text is exact
