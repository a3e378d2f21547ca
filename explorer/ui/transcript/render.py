"""Which card a transcript row becomes: the one place rows turn into widgets.

The view calls :func:`card_for_row` for the rows near the viewport and
:func:`connect_card` to wire a card's requests to its own signals. Other row
kinds (a branch being previewed, agent rows) are added here, not in the view.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QWidget

from explorer.ui.transcript.cards import Card, CardContext, MessageCard
from explorer.ui.transcript.rows import Row
from explorer.ui.transcript.slim_cards import MarkerCard, PendingCard


class CardHost(Protocol):
    """The signals a view offers for what its cards ask for."""

    siblingChosen: SignalInstance
    compareRequested: SignalInstance
    contextMenuRequested: SignalInstance
    subagentRequested: SignalInstance
    branchOpened: SignalInstance
    markerOpened: SignalInstance


def card_for_row(row: Row, ctx: CardContext, parent: QWidget) -> Card:
    """A marker card, a message card, or a placeholder while the content is being read."""
    if row.marker is not None:
        return MarkerCard(row.marker, row.mid, parent)
    if row.message is not None:
        return MessageCard(row.message, row.mid, ctx, parent)
    assert row.entry is not None, "a message row has an entry or a message"
    return PendingCard(row.entry, parent)


def connect_card(card: Card, host: CardHost) -> None:
    """Forward a card's requests to the view's signals."""
    if isinstance(card, MessageCard):
        card.siblingChosen.connect(host.siblingChosen)
        card.compareRequested.connect(host.compareRequested)
        card.subagentRequested.connect(host.subagentRequested)
        card.branchOpened.connect(host.branchOpened)
        card.markerOpened.connect(host.markerOpened)
    card.menuRequested.connect(host.contextMenuRequested)
