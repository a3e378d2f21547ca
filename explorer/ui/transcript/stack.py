"""The transcript's built cards: which rows near the viewport have a widget, and building more.

The view knows every row and its height; this keeps the few dozen real cards for
the rows near the viewport, builds the missing ones within a time budget per
event-loop turn, measures them, places them and lets far ones go.

The budget is shared by everything one turn builds (a relayout may pass over the
window several times while heights settle), and every turn builds at least one
real card, so a screenful of heavy cards (markdown, highlighted code) arrives
piece by piece, never as one long stall, and always arrives.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.ui.transcript.cards import Card, MessageCard
from explorer.ui.transcript.render import card_for_row, connect_card
from explorer.ui.transcript.slim_cards import PendingCard

if TYPE_CHECKING:
    from explorer.ui.transcript.view import TranscriptView

MARGIN = 10
BUILD_BUDGET_S = 0.004
"""Time per event-loop turn spent building real cards (at least one is built): with
the last card, the placing and the painting after it, a turn stays under a 16 ms frame."""
SCROLL_BUDGET_S = 0.003
"""The same for the turn of a scroll step or a jump, which also paints every row it exposed.
Such a turn need not build any card: the rows on screen show placeholders once it is spent,
the row jumped to is built regardless, and the rows beyond the screen wait for the next turns."""


FRAME_S = 0.006
"""A relayout this soon after one that built cards is in the same pass of the event loop
(several events handled at once: rows arriving, a resize, a jump): it builds nothing but
the row jumped to, and the cards it would have built wait for the next turn."""


@dataclass
class Budget:
    """One event-loop turn's allowance for building cards."""

    deadline: float
    built: int = 0
    scrolling: bool = False  # a scroll step or a jump: only the rows on screen are built
    frame_ends: float = 0.0  # set when an earlier pass of this frame built cards already
    started: float = 0.0
    finished: float = 0.0  # when it last built a card

    @classmethod
    def for_turn(cls, scrolling: bool = False) -> Budget:
        seconds = min(BUILD_BUDGET_S, SCROLL_BUDGET_S) if scrolling else BUILD_BUDGET_S
        now = time.perf_counter()
        return cls(now + seconds, scrolling=scrolling, started=now)

    def spent(self) -> bool:
        least = 0 if self.scrolling else 1
        return self.built >= least and time.perf_counter() > self.deadline

    def wait_ms(self) -> int:
        """How long the cards left over wait: to the end of the frame, if this one shares it."""
        return max(0, math.ceil((self.frame_ends - time.perf_counter()) * 1000))


class CardStack:
    """The real cards of a :class:`TranscriptView`, by row index."""

    def __init__(self, view: TranscriptView, more: Callable[[int], None]) -> None:
        self.view = view
        self.cards: dict[int, Card] = {}
        self._more = more  # asks for another turn (in so many ms) when the budget ran out
        self._last: Budget | None = None  # the budget of the last pass that built cards
        self.built_real = 0  # real (not placeholder) cards made, for tests and benchmarks

    def budget(self, scrolling: bool = False) -> Budget:
        """The allowance of a relayout: a turn's own, unless a pass moments ago (in the same
        frame) built cards already; then only placeholders, and the rest in the next frame."""
        budget = Budget.for_turn(scrolling)
        last = self._last
        if last is not None and last.built and budget.started - last.finished < FRAME_S:
            budget.scrolling = True
            budget.deadline = 0.0
            budget.frame_ends = last.finished + FRAME_S
        else:
            self._last = budget
        return budget

    def build(self, window: Iterable[int], visible: range, budget: Budget,
              first: int | None = None) -> bool:
        """Create missing cards in ``window`` (``first``, the row scrolled to, then the
        visible rows, then the margin); True if a height changed.

        Rows on screen always get a card: once the budget is spent a placeholder
        stands in, and real cards for the rest are built on the next turns. A
        scrolling turn leaves the margin to them, and builds ``first`` regardless.
        """
        v = self.view
        changed = False
        for i in sorted(window, key=lambda i: (i != first, i not in visible)):
            card = self.cards.get(i)
            stale = isinstance(card, PendingCard) and v.rows[i].message is not None
            if card is not None and not stale:
                continue
            later = budget.spent() or (budget.scrolling and i not in visible)
            if later and i != first:
                self._more(budget.wait_ms())
                if card is not None or i not in visible:
                    continue
                card = self.make(i, placeholder=True)
            else:
                if card is not None:
                    self.drop(i)
                card = self.make(i)
                budget.built += 1
                budget.finished = time.perf_counter()
                self.built_real += 1
            self.cards[i] = card
            height = self.measure(card)
            if isinstance(card, PendingCard):  # it stands in at the row's guess, not less: a
                height = max(height, v.heights[i])  # screenful of them stays a screenful
            if height != v.heights[i]:
                v.heights[i] = height
                changed = True
        return changed

    def make(self, i: int, placeholder: bool = False) -> Card:
        v = self.view
        row = v.rows[i]
        if placeholder and row.entry is not None and row.marker is None:
            card: Card = PendingCard(row.entry, v.viewport())
        else:
            card = card_for_row(row, v.card_context, v.viewport())
        connect_card(card, v)
        if isinstance(card, MessageCard):
            card.unfoldRequested.connect(v.unfold)
            card.expandRequested.connect(v.expand)
            card.collapsed.connect(v.forget_whole)
            v.restore_wholes(card)
        card.pressed.connect(v.select)
        card.resized.connect(lambda c=card: v.card_resized(c))
        card.set_selected(row.is_message and row.mid == v.selected())
        card.set_compare_mark(v.mark_number(row.mid) if row.is_message else None)
        card.set_live(v.live_marks.get(row.mid, 0.0) if row.is_message else 0.0)
        v.content.shown(i)
        return card

    def measure(self, card: Card) -> int:
        width = self.view.card_width_now
        height = card.heightForWidth(width)
        return height if height > 0 else card.sizeHint().height()

    def place(self, value: int) -> None:
        """Put every card at its row's offset for scroll position ``value``."""
        v = self.view
        heights, width = v.heights, v.card_width_now
        top, after = 0, -2  # a run of adjacent rows is placed by adding, not looked up
        for i in sorted(self.cards):
            top = top + heights[after] + heights.spacing if i == after + 1 else heights.offset(i)
            after = i
            card = self.cards[i]
            card.setGeometry(MARGIN, top + MARGIN - value, width, heights[i])
            if card.isHidden():
                card.show()

    def evict(self, keep: range) -> None:
        for i in [i for i in self.cards if i not in keep]:
            self.drop(i)

    def drop(self, i: int) -> None:
        """Hide now, delete later: the card may be the one whose click is being handled."""
        card = self.cards.pop(i)
        card.hide()
        if isinstance(card, MessageCard):
            for whole in card.wholes.values():
                whole.stop()
        card.deleteLater()

    def detach(self) -> dict[int, tuple[Card, int]]:
        """Take out the built message cards, by message id with their heights, to be put
        back at their rows in a longer table of the same path; drop the rest."""
        v = self.view
        kept: dict[int, tuple[Card, int]] = {}
        for i in [i for i, card in self.cards.items() if isinstance(card, MessageCard)]:
            row = v.rows[i]
            if row.marker is None:
                kept[row.mid] = (self.cards.pop(i), v.heights[i])
        self.clear()
        return kept

    def attach(self, kept: Mapping[int, tuple[Card, int]], rows_of: Mapping[int, int],
               changed: Callable[[int], bool]) -> None:
        """Put detached cards back at their messages' rows, with the heights they were
        measured at; one whose message ``changed`` says looks different is built again."""
        for mid, (card, height) in kept.items():
            if changed(mid) or mid not in rows_of:
                card.hide()
                card.deleteLater()
                continue
            i = rows_of[mid]
            self.cards[i] = card
            self.view.heights[i] = height
            self.view.content.shown(i)

    def clear(self) -> None:
        for i in list(self.cards):
            self.drop(i)

    def row_of(self, card: Card) -> int | None:
        return next((i for i, c in self.cards.items() if c is card), None)
