"""Where the transcript is scrolled to, and keeping the text the reader looks at still.

The transcript knows every row of its path and a height for each (a guess until
the row's card has been built and measured). This base of the view owns that
geometry: the scroll bar's range, the row at a given y, the anchor (the row at
the top of the viewport and how far into it the view is), building the cards
near the viewport and measuring them. Whenever heights change (a card measured,
a new width, better guesses, more rows read above the tip) the anchor row stays
where it was on screen, or the end stays the end for a reader who is there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPoint, QTimer
from PySide6.QtGui import QFontDatabase, QFontMetricsF, QHelpEvent, QResizeEvent
from PySide6.QtWidgets import QAbstractScrollArea, QFrame, QToolTip, QWidget

from explorer.store.reads_path import PathColumns
from explorer.ui.background.tasks import LatestRunner
from explorer.ui.transcript.cards import Card
from explorer.ui.transcript.heights import RowHeights
from explorer.ui.transcript.row_table import RowTable
from explorer.ui.transcript.rows import Metrics
from explorer.ui.transcript.scrollbar import KeptGrooveScrollBar
from explorer.ui.transcript.stack import MARGIN

if TYPE_CHECKING:
    from explorer.ui.transcript.stack import CardStack

SPACING = 8
OVERSCAN = 1.0
"""Viewport heights built beyond each edge, so a scroll step finds its cards ready."""
KEEP = 3.0
"""Viewport heights beyond each edge after which cards are destroyed."""
REESTIMATE = 0.15
"""Relative width change after which unbuilt rows' heights are guessed again."""

Anchor = tuple[int, int]
"""A row and how many pixels of it are scrolled past the top of the viewport."""


class AnchoredScroll(QAbstractScrollArea):
    """Row geometry and scrolling for :class:`~explorer.ui.transcript.view.TranscriptView`."""

    stack: CardStack

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows = RowTable(PathColumns())
        self.heights = RowHeights((), SPACING)
        self.estimates = LatestRunner(self, threads=1, name="transcript-estimates")
        self.estimates.finished.connect(self._apply_estimates)
        self._more = QTimer(self, singleShot=True, interval=0)
        self._more.timeout.connect(lambda: self._relayout())
        # A scroll step asks for the new rows' content after it has painted: a read started
        # inside the step competes with its painting for the interpreter (the GIL).
        self._fetch_soon = QTimer(self, singleShot=True, interval=0)
        self._fetch_soon.timeout.connect(lambda: self._fetch_window())
        self._focus: int | None = None  # the row last scrolled to: its card is built first
        self._in_layout = False
        self.card_width_now = 0
        self._estimated_at = 0
        self.width_box = [self._card_width()]  # kept current for workers guessing heights
        self.setVerticalScrollBar(KeptGrooveScrollBar(self))  # a step repaints the handle only
        self.verticalScrollBar().setSingleStep(40)
        self.setFrameShape(QFrame.Shape.NoFrame)

    def _fetch_window(self) -> None:
        """After a relayout: the view reads the content of the rows near the viewport."""

    # -- heights ----------------------------------------------------------------------
    def _metrics(self) -> Metrics:
        fm = QFontMetricsF(self.font())
        mono = QFontMetricsF(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        return Metrics(round(fm.lineSpacing()), fm.averageCharWidth(),
                       round(mono.lineSpacing()), mono.averageCharWidth())

    def _take_heights(self, heights: Sequence[int], width: int) -> None:
        """Guessed heights for new rows, made at ``width``; guessed again if that is stale."""
        self.card_width_now = self._card_width()
        self.heights = RowHeights(heights, SPACING)
        self._estimated_at = width
        if abs(self.card_width_now - width) > REESTIMATE * max(width, 1):
            self._estimate_heights_later()

    def _estimate_heights_later(self) -> None:
        """Guess the heights again for the current width on a worker (80k rows take a while)."""
        rows, width, metrics = self.rows, self.card_width_now, self._metrics()
        self._estimated_at = width
        self.estimates.submit(lambda t: (rows, rows.estimates(width, metrics)))

    def _apply_estimates(self, result: object) -> None:
        assert isinstance(result, tuple)
        rows, heights = result
        if rows is not self.rows:
            return  # another path was loaded meanwhile
        anchor, at_end = self._anchor(), self.at_end()
        fresh = RowHeights(heights, SPACING)
        for i in self.stack.cards:
            fresh[i] = self.heights[i]
        self.heights = fresh
        self._update_range()
        self._keep_place(anchor, at_end)

    def card_resized(self, card: Card) -> None:
        row = self.stack.row_of(card)
        if row is None:
            return
        anchor, at_end = self._anchor(), self.at_end()
        card.updateGeometry()
        self.heights[row] = self.stack.measure(card)
        self._update_range()
        self._keep_place(anchor, at_end)

    # -- geometry -------------------------------------------------------------------------
    def _card_width(self) -> int:
        return max(self.viewport().width() - 2 * MARGIN, 120)

    def _update_range(self) -> None:
        """Size the scroll bar to the stack (the offsets themselves are kept current)."""
        total = self.heights.total + 2 * MARGIN
        page = self.viewport().height()
        bar = self.verticalScrollBar()
        bar.setPageStep(page)
        bar.setRange(0, max(0, total - page))

    def _row_at(self, y: int) -> int:
        return self.heights.row_at(y - MARGIN)

    def _row_visible(self, row: int) -> bool:
        top = self.heights.offset(row) + MARGIN
        value = self.verticalScrollBar().value()
        return value <= top and top + self.heights[row] <= value + self.viewport().height()

    def _anchor(self) -> Anchor:
        """The row at the top of the viewport and how far into it the view is scrolled."""
        value = self.verticalScrollBar().value()
        row = self._row_at(value + MARGIN)
        return row, value - self.heights.offset(row)

    def _anchor_mid(self) -> tuple[int, int] | None:
        """The anchor by message id, to find the same place in another table of rows."""
        if not self.rows:
            return None
        row, offset = self._anchor()
        return self.rows.mid(row), offset

    def at_end(self) -> bool:
        """True when the last row is in view: a reader there stays there as rows grow."""
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() > 0

    # -- scrolling ----------------------------------------------------------------------
    def scroll_to_end(self) -> None:
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        self._relayout()

    def _place(self, rows_of: Mapping[int, int], jump: int | None,
               anchor: tuple[int, int] | None, at_end: bool) -> bool:
        """Where newly read rows open: at message ``jump`` if it is among them, else at the
        end for a reader who was there, else at the anchor's message, else at the top.
        True when it jumped."""
        if jump is not None and jump in rows_of:
            self._scroll_to_row(rows_of[jump], 0, jump=True)
            return True
        if at_end:
            self.scroll_to_end()
        elif anchor is not None and anchor[0] in rows_of:
            self._scroll_to_row(rows_of[anchor[0]], anchor[1])
        else:
            self.verticalScrollBar().setValue(0)
            self._relayout()
        return False

    def _keep_place(self, anchor: Anchor, at_end: bool) -> None:
        """After heights changed: the end stays the end, else the anchor row stays still."""
        if at_end:
            self.scroll_to_end()
        else:
            self._scroll_to_row(*anchor)

    def _scroll_to_row(self, row: int, offset: int, jump: bool = False) -> None:
        """Put ``row`` at the top (``offset`` pixels into it); a ``jump`` (a reader asking
        for a message) builds that row's card and shows placeholders around it at once."""
        self._focus = row
        self._in_layout = True
        try:
            self.verticalScrollBar().setValue(self.heights.offset(row) + offset)
        finally:
            self._in_layout = False
        self._relayout(anchor=(row, offset), scrolling=jump)

    def _relayout(self, anchor: Anchor | None = None, scrolling: bool = False) -> None:
        """Build the cards near the viewport, measure them and keep the anchor row still."""
        if self._in_layout or not self.rows:
            return
        self._in_layout = True
        try:
            bar = self.verticalScrollBar()
            budget = self.stack.budget(scrolling)  # shared by the passes while heights settle
            for _ in range(4):
                at_end = bar.value() >= bar.maximum() > 0 and anchor is None
                row, offset = anchor or self._anchor()
                if not self.stack.build(self._window(OVERSCAN), self._window(0), budget,
                                        self._focus):
                    break
                self._update_range()
                bar.setValue(bar.maximum() if at_end else self.heights.offset(row) + offset)
            self.stack.place(bar.value())
            self.stack.evict(self._window(KEEP))
        finally:
            self._in_layout = False
        if scrolling:
            self._fetch_soon.start()
        else:
            self._fetch_window()

    def _window(self, extra: float) -> range:
        value = self.verticalScrollBar().value()
        page = self.viewport().height()
        first = self._row_at(int(value - extra * page))
        last = self._row_at(int(value + page + extra * page))
        return range(first, last + 1)

    # -- Qt events ------------------------------------------------------------------------
    def viewportEvent(self, event: QEvent) -> bool:
        """Tooltips for the cards: a card asks no events of its own for them (see
        :meth:`Card.tooltip_at`), so a tooltip event it leaves comes up to here."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            card = self._card_at(event.pos())
            if card is not None:
                at = card.mapFrom(self.viewport(), event.pos())
                tip = card.tooltip_at(at)
                if tip:
                    QToolTip.showText(event.globalPos(), tip, card, card.tooltip_rect(at))
                else:
                    QToolTip.hideText()
                return True
        return super().viewportEvent(event)

    def _card_at(self, pos: QPoint) -> Card | None:
        widget = self.viewport().childAt(pos)
        while widget is not None and not isinstance(widget, Card):
            widget = widget.parentWidget()
        return widget

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        # The step itself shows placeholders for most new rows and paints at once;
        # their cards follow on the next turns (the frames stay short while scrolling).
        self._relayout(scrolling=True)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.width_box[0] = self._card_width()
        if not self.rows:
            return
        anchor, at_end = self._anchor(), self.at_end()
        width = self._card_width()
        if width != self.card_width_now:
            self.card_width_now = width
            if abs(width - self._estimated_at) > REESTIMATE * self._estimated_at:
                self._estimate_heights_later()
            for i, card in self.stack.cards.items():
                self.heights[i] = self.stack.measure(card)
        self._update_range()
        self._keep_place(anchor, at_end)
