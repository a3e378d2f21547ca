"""A message card's header is painted by the card (V2: a scroll step paints few widgets),
and does all its labels and buttons did: clicks, hover, tooltips, the keyboard."""

from __future__ import annotations

import gc
import weakref
from dataclasses import replace

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QFocusEvent, QHelpEvent, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QToolButton, QToolTip, QWidget
from pytestqt.qtbot import QtBot
from transcript_helpers import message_cards, tall_view

from explorer.app.importing.demo import load_demo
from explorer.store import Store
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.card_words import describe_tokens, format_time
from explorer.ui.transcript.cards import MessageCard


@pytest.fixture
def view(qtbot: QtBot, store: Store) -> TranscriptView:
    """The demo, every card built."""
    return tall_view(qtbot, store, load_demo(store))


cards = message_cards


def tip_card(view: TranscriptView) -> MessageCard:
    """The regenerated answer at the tip: 2/2, ◀ enabled, ▶ not."""
    card = view.card_for(view.message_ids()[-1])
    assert isinstance(card, MessageCard) and card.switcher.text() == "2/2"
    return card


def click(card: MessageCard, name: str) -> None:
    QTest.mouseClick(card, Qt.MouseButton.LeftButton, pos=card.item_rect(name).center())


def test_V2_a_card_header_has_no_child_widgets(view: TranscriptView) -> None:
    built = cards(view)
    assert len(built) > 10 and any(c.switcher.visible for c in built)
    for card in built:
        children = card.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
        assert len(children) == len(card.part_widgets) + len(card.folded), \
            "a card's own widgets are its parts (and their folded notes), nothing for the header"
        assert not any(isinstance(w, QToolButton) for w in children)
        texts = {w.text() for w in children if isinstance(w, QLabel)}
        assert card.header.text("role") not in texts and card.header.text("time") not in texts
        assert card.header.text("role") and not card.item_rect("role").isEmpty()


def test_V2_clicking_the_painted_arrows_switches_siblings_as_the_buttons_did(
        qtbot: QtBot, view: TranscriptView, store: Store) -> None:
    card = tip_card(view)
    other = next(s for s in store.siblings(card.mid) if s != card.mid)
    with qtbot.waitSignal(view.siblingChosen, timeout=1000) as chosen:
        click(card, "previous")
    assert chosen.args == [other]
    with qtbot.assertNotEmitted(view.siblingChosen), qtbot.assertNotEmitted(view.messageSelected):
        click(card, "next")  # greyed at the end: it does nothing, not even select the card
    with qtbot.waitSignal(view.compareRequested, timeout=1000) as compared:
        click(card, "compare")
    assert compared.args == [card.mid]
    with qtbot.waitSignal(view.messageSelected, timeout=1000) as selected:
        click(card, "place")  # the words are not a button: a click there selects the card
    assert selected.args == [card.mid]


def test_V2_a_press_acts_only_when_released_over_the_same_button(
        qtbot: QtBot, view: TranscriptView) -> None:
    card = tip_card(view)
    on, off = card.item_rect("previous").center(), card.item_rect("role").center()
    with qtbot.assertNotEmitted(view.siblingChosen):
        QTest.mousePress(card, Qt.MouseButton.LeftButton, pos=on)
        pressed = card.header.pressed
        assert pressed is not None and pressed.name == "previous"
        QTest.mouseRelease(card, Qt.MouseButton.LeftButton, pos=off)
    assert card.header.pressed is None


def tip_at(card: MessageCard, at: QPoint) -> str:
    """The tooltip a hover at ``at`` shows (the card leaves the event to its view)."""
    QToolTip.hideText()
    QApplication.sendEvent(card, QHelpEvent(QEvent.Type.ToolTip, at, card.mapToGlobal(at)))
    return QToolTip.text()


def test_V2_header_tooltips_say_what_the_labels_and_buttons_said(view: TranscriptView) -> None:
    card = tip_card(view)

    def tip_of(name: str) -> str:
        return tip_at(card, card.item_rect(name).center())

    assert tip_of("tokens") == describe_tokens(card.message.usage) != ""
    assert tip_of("compare") == "Compare the alternatives side by side"
    assert tip_of("previous").startswith("◀ previous\n1. ")
    assert tip_of("place").startswith("alternative 2 of 2\n")
    assert card.header.text("time") == format_time(card.message.created_at)


def test_V2_a_card_marked_for_compare_keeps_its_header_tooltips(view: TranscriptView) -> None:
    card = tip_card(view)
    view.set_compare_marks([card.mid])
    assert tip_at(card, card.item_rect("tokens").center()) == describe_tokens(card.message.usage)
    body = card.texts[0].geometry().center()  # on the text: the whole card's tooltip
    assert tip_at(card, body) == "marked for compare (1)"
    view.set_compare_marks([])
    assert card.tooltip_at(body) == "", "nothing to say there once unmarked"


def test_V2_the_mouse_lights_the_button_under_it(view: TranscriptView) -> None:
    card = tip_card(view)
    at = QPointF(card.item_rect("previous").center())
    move = QMouseEvent(QEvent.Type.MouseMove, at, card.mapToGlobal(at),
                       Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(card, move)
    hovered = card.header.hovered
    assert hovered is not None and hovered.name == "previous"
    QApplication.sendEvent(card, QEvent(QEvent.Type.Leave))
    assert card.header.hovered is None


def test_V2_tab_reaches_each_enabled_button_and_space_presses_it(
        qtbot: QtBot, view: TranscriptView, store: Store) -> None:
    card = tip_card(view)
    assert card.focusPolicy() == Qt.FocusPolicy.TabFocus
    QApplication.sendEvent(card, QFocusEvent(QEvent.Type.FocusIn, Qt.FocusReason.TabFocusReason))
    focused = card.header.focused
    assert focused is not None and focused.name == "previous"
    other = next(s for s in store.siblings(card.mid) if s != card.mid)
    with qtbot.waitSignal(view.siblingChosen, timeout=1000) as chosen:
        QTest.keyClick(card, Qt.Key.Key_Space)
    assert chosen.args == [other]
    assert card.header.focus_step(card, True)
    focused = card.header.focused
    assert focused is not None and focused.name == "compare", "▶ is greyed: Tab passes it"
    assert not card.header.focus_step(card, True), "past the last button the focus leaves the card"


def test_V2_the_header_words_are_the_cards_accessible_name(view: TranscriptView) -> None:
    card = tip_card(view)
    name = card.accessibleName()
    assert name.startswith("Assistant") and card.header.text("time") in name and "2/2" in name
    plain = next(c for c in cards(view) if not c.switcher.visible)
    assert plain.focusPolicy() == Qt.FocusPolicy.NoFocus, "nothing to press: no Tab stop"


def test_V2_a_narrow_card_shortens_the_model_not_who_spoke(view: TranscriptView) -> None:
    card = tip_card(view)
    card.resize(260, card.height())
    role, model = card.header.find("role"), card.header.find("model")
    assert role is not None and model is not None
    card.item_rect("role")
    assert role.shown == role.text and model.shown != model.text
    assert card.item_rect("compare").right() < card.width(), "the switcher stays on the card"
    assert not card.item_rect("model").intersects(card.item_rect("time"))


def test_V2_a_card_let_go_is_freed_at_once_not_by_a_collection(
        view: TranscriptView, store: Store) -> None:
    """Its header holds no callables and no reference back to it: no cycle for the
    collector to find (an open frees the last conversation's cards by reference counting)."""
    tip = tip_card(view)
    gc.collect()
    gc.disable()
    try:
        bare = replace(tip.message, parts=[])  # the header alone (parts are other modules')
        card = MessageCard(bare, tip.mid, view.card_context)
        assert card.switcher.visible and card.links == [] and card.header.find("previous")
        card.item_rect("previous")  # laid out, as painting does
        freed = weakref.ref(card)
        del card
        assert freed() is None
    finally:
        gc.enable()
