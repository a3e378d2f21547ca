"""Waiting for the transcript: its path and content are read on workers (V2)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.cards import MessageCard

TIMEOUT_MS = 10_000


def settle(qtbot: QtBot, view: TranscriptView) -> None:
    """Wait until the path's rows are in and the rows near the viewport have their content."""
    qtbot.waitUntil(lambda: not view.is_loading, timeout=TIMEOUT_MS)


def load(qtbot: QtBot, view: TranscriptView, conv: int, tip: int | None = None) -> None:
    view.load_path(conv, tip)
    settle(qtbot, view)


def shown_view(qtbot: QtBot, store: Store, conv_id: int, width: int = 900,
               height: int = 1200) -> TranscriptView:
    """A view of ``width`` × ``height`` on screen, with the conversation's path loaded."""
    view = TranscriptView(store)
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    load(qtbot, view, conv_id)
    return view


def tall_view(qtbot: QtBot, store: Store, conv_id: int) -> TranscriptView:
    """A view tall enough that every card of the demo is built."""
    return shown_view(qtbot, store, conv_id, 900, 9000)


def message_cards(view: TranscriptView) -> list[MessageCard]:
    return [c for c in view.live_cards() if isinstance(c, MessageCard)]
