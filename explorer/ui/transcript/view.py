"""The transcript of a conversation's active path, built lazily.

Why a virtual stack of real widgets rather than a QListView with a delegate:
cards are interactive (thinking toggles, "show all lines", thumbnails that
open, sibling switchers, selectable text), and a delegate only paints, so each
of those would have to be re-implemented as hit-testing by hand. Instead the
view is a QAbstractScrollArea that knows every row and a height for each
(estimated from text length until the row's card has been built and
measured), and creates real cards only for rows within about a screen of the
viewport; cards far away are destroyed. A 5,000-message path therefore costs
5,000 small records and a few dozen widgets. When real heights replace
estimates, the row at the top of the viewport keeps its place (scroll
anchoring), so the text the reader is looking at never jumps.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import (
    QFontDatabase,
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
)
from PySide6.QtWidgets import QAbstractScrollArea, QFrame, QWidget

from explorer.store import Store
from explorer.ui.transcript.cards import Card, CardContext, MarkerCard, MessageCard
from explorer.ui.transcript.rows import (
    Metrics,
    PathInfo,
    Row,
    build_rows,
    estimate_height,
    tool_names,
)

SPACING = 8
MARGIN = 10
OVERSCAN = 1.0
"""Viewport heights built beyond each edge, so a scroll step finds its cards ready."""
KEEP = 3.0
"""Viewport heights beyond each edge after which cards are destroyed."""
REESTIMATE = 0.15
"""Relative width change after which unbuilt rows' heights are guessed again."""


class TranscriptView(QAbstractScrollArea):
    messageSelected = Signal(int)
    siblingChosen = Signal(int)
    compareRequested = Signal(int)
    contextMenuRequested = Signal(int, QPoint)

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.conversation_id: int | None = None
        self.rows: list[Row] = []
        self._heights: list[int] = []
        self._offsets: list[int] = [0]
        self._cards: dict[int, Card] = {}
        self._message_row: dict[int, int] = {}
        self._selected: int | None = None
        self._ctx = CardContext()
        self._in_layout = False
        self._width = 0
        self._estimated_at = 0
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.verticalScrollBar().setSingleStep(40)
        self.viewport().setBackgroundRole(QPalette.ColorRole.Window)
        self.setFrameShape(QFrame.Shape.NoFrame)

    # -- public API ---------------------------------------------------------------
    def load_path(self, conv_id: int, tip: int | None = None) -> None:
        """Show the active path of ``conv_id`` (or the path to ``tip``).

        Reloading the same conversation keeps the message at the top of the view
        in place, so switching siblings below it does not throw the reader off.
        """
        anchor = self._anchor_mid() if conv_id == self.conversation_id else None
        conv = self.store.conversation(conv_id)
        path = self.store.path(conv_id, tip)
        self.conversation_id = conv_id
        self._clear_cards()
        self.rows = build_rows(
            path, rewinds=self.store.rewinds(conv_id),
            compactions=self.store.compactions(conv_id),
            context_start=conv.context_start_id, clean_tip=conv.clean_tip_id)
        labels: dict[int, list[str]] = {}
        for label, mid in self.store.checkpoints(conv_id).items():
            labels.setdefault(mid, []).append(label)
        self._ctx = CardContext(PathInfo(tool_names(path), labels), self._siblings)
        self._message_row = {}
        for i, row in enumerate(self.rows):
            if row.message is not None:
                self._message_row.setdefault(row.mid, i)
        self._width = self._card_width()
        self._estimate_heights()
        self._recompute_offsets()
        self.verticalScrollBar().setValue(0)
        if anchor is not None and anchor[0] in self._message_row:
            self._scroll_to_row(self._message_row[anchor[0]], anchor[1])
        else:
            self._relayout()
        self.viewport().update()

    def scroll_to(self, mid: int) -> None:
        """Bring message ``mid``'s card to the top of the view (building it if needed)."""
        self._scroll_to_row(self._row(mid), 0)

    def scroll_to_end(self) -> None:
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        self._relayout()

    def select(self, mid: int) -> None:
        """Mark ``mid`` selected, make it visible and emit ``messageSelected`` if it changed."""
        row = self._row(mid)
        if not self._row_visible(row):
            self._scroll_to_row(row, 0)
        if mid == self._selected:
            return
        for i, card in self._cards.items():
            card.set_selected(i == row)
        self._selected = mid
        self.messageSelected.emit(mid)

    def selected(self) -> int | None:
        return self._selected

    def card_for(self, mid: int) -> Card | None:
        """The built card of message ``mid``, or None while it is only a placeholder."""
        return self._cards.get(self._row(mid))

    def live_cards(self) -> list[Card]:
        return [self._cards[i] for i in sorted(self._cards)]

    def message_ids(self) -> list[int]:
        return list(self._message_row)

    # -- geometry -------------------------------------------------------------------
    def _metrics(self) -> Metrics:
        fm = QFontMetricsF(self.font())
        mono = QFontMetricsF(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        return Metrics(round(fm.lineSpacing()), fm.averageCharWidth(),
                       round(mono.lineSpacing()), mono.averageCharWidth())

    def _estimate_heights(self) -> None:
        """Guess the heights of rows without a card (live cards are measured instead)."""
        metrics = self._metrics()
        old = self._heights
        self._heights = [old[i] if i in self._cards else estimate_height(r, self._width, metrics)
                         for i, r in enumerate(self.rows)]
        self._estimated_at = self._width

    def _card_width(self) -> int:
        return max(self.viewport().width() - 2 * MARGIN, 120)

    def _recompute_offsets(self) -> None:
        self._offsets = [0, *accumulate(h + SPACING for h in self._heights)]
        total = self._offsets[-1] + 2 * MARGIN
        page = self.viewport().height()
        bar = self.verticalScrollBar()
        bar.setPageStep(page)
        bar.setRange(0, max(0, total - page))

    def _row(self, mid: int) -> int:
        if mid not in self._message_row:
            raise KeyError(f"message {mid} is not on the shown path")
        return self._message_row[mid]

    def _row_at(self, y: int) -> int:
        return max(0, min(len(self.rows) - 1, bisect_right(self._offsets, y - MARGIN) - 1))

    def _row_visible(self, row: int) -> bool:
        top = self._offsets[row] + MARGIN
        value = self.verticalScrollBar().value()
        return value <= top and top + self._heights[row] <= value + self.viewport().height()

    def _anchor(self) -> tuple[int, int]:
        value = self.verticalScrollBar().value()
        row = self._row_at(value)
        return row, value - self._offsets[row]

    def _anchor_mid(self) -> tuple[int, int] | None:
        if not self.rows:
            return None
        row, offset = self._anchor()
        return self.rows[row].mid, offset

    def _scroll_to_row(self, row: int, offset: int) -> None:
        self._in_layout = True
        try:
            self.verticalScrollBar().setValue(self._offsets[row] + offset)
        finally:
            self._in_layout = False
        self._relayout(anchor=(row, offset))

    # -- building cards -----------------------------------------------------------
    def _relayout(self, anchor: tuple[int, int] | None = None) -> None:
        """Build the cards near the viewport, measure them and keep the anchor row still."""
        if self._in_layout or not self.rows:
            return
        self._in_layout = True
        try:
            bar = self.verticalScrollBar()
            for _ in range(4):
                at_end = bar.value() >= bar.maximum() > 0 and anchor is None
                row, offset = anchor or self._anchor()
                if not self._build_window():
                    break
                self._recompute_offsets()
                bar.setValue(bar.maximum() if at_end else self._offsets[row] + offset)
            self._place_cards()
            self._evict_far_cards()
        finally:
            self._in_layout = False

    def _window(self, extra: float) -> range:
        value = self.verticalScrollBar().value()
        page = self.viewport().height()
        first = self._row_at(int(value - extra * page))
        last = self._row_at(int(value + page + extra * page))
        return range(first, last + 1)

    def _build_window(self) -> bool:
        """Create missing cards in the window; True if any height changed."""
        changed = False
        for i in self._window(OVERSCAN):
            if i in self._cards:
                continue
            card = self._make_card(i)
            self._cards[i] = card
            height = self._measure(card)
            if height != self._heights[i]:
                self._heights[i] = height
                changed = True
        return changed

    def _make_card(self, i: int) -> Card:
        row = self.rows[i]
        card: Card
        if row.marker is not None:
            card = MarkerCard(row.marker, row.mid, self.viewport())
        else:
            assert row.message is not None
            message_card = MessageCard(row.message, row.mid, self._ctx, self.viewport())
            message_card.siblingChosen.connect(self.siblingChosen)
            message_card.compareRequested.connect(self.compareRequested)
            card = message_card
        card.pressed.connect(self.select)
        card.menuRequested.connect(self.contextMenuRequested)
        card.resized.connect(lambda c=card: self._card_resized(c))
        card.set_selected(row.message is not None and row.mid == self._selected)
        return card

    def _measure(self, card: Card) -> int:
        height = card.heightForWidth(self._width)
        return height if height > 0 else card.sizeHint().height()

    def _place_cards(self) -> None:
        value = self.verticalScrollBar().value()
        for i, card in self._cards.items():
            card.setGeometry(MARGIN, self._offsets[i] + MARGIN - value, self._width,
                             self._heights[i])
            if card.isHidden():
                card.show()

    def _evict_far_cards(self) -> None:
        keep = self._window(KEEP)
        for i in [i for i in self._cards if i not in keep]:
            self._drop_card(i)

    def _drop_card(self, i: int) -> None:
        """Hide now, delete later: the card may be the one whose click is being handled."""
        card = self._cards.pop(i)
        card.hide()
        card.deleteLater()

    def _clear_cards(self) -> None:
        for i in list(self._cards):
            self._drop_card(i)

    def _card_resized(self, card: Card) -> None:
        row = next((i for i, c in self._cards.items() if c is card), None)
        if row is None:
            return
        anchor = self._anchor()
        card.updateGeometry()
        self._heights[row] = self._measure(card)
        self._recompute_offsets()
        self._scroll_to_row(*anchor)

    def _siblings(self, mid: int) -> list[int]:
        return self.store.siblings(mid)

    # -- Qt events ------------------------------------------------------------------
    def scrollContentsBy(self, dx: int, dy: int) -> None:
        self._relayout()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self.rows:
            return
        anchor = self._anchor()
        width = self._card_width()
        if width != self._width:
            self._width = width
            if abs(width - self._estimated_at) > REESTIMATE * self._estimated_at:
                self._estimate_heights()
            for i, card in self._cards.items():
                self._heights[i] = self._measure(card)
        self._recompute_offsets()
        self._scroll_to_row(*anchor)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.rows:
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        text = "No conversation chosen." if self.conversation_id is None else "No messages yet."
        painter.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, text)
