"""The transcript of a conversation's active path, read and built lazily.

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

Nothing is read on the main thread (V2): ``load_path`` asks a worker for the
path's skeleton (ids, roles, previews, part sizes) and returns at once; rows
then appear as placeholder cards, and the content of the rows near the
viewport (plus a margin) is read by a second worker and swapped in when it
arrives. Content far from the viewport is let go again, and part text over
a limit is read only up to it (its card offers the rest on demand), so
memory follows the screen, not the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QFontDatabase,
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
)
from PySide6.QtWidgets import QAbstractScrollArea, QFrame, QWidget

from explorer.app.branch_labels import sibling_lines
from explorer.store import Store
from explorer.store.reads_path import PathColumns
from explorer.ui.tasks import LatestRunner
from explorer.ui.transcript.cards import Card, CardContext
from explorer.ui.transcript.fetching import ContentWindow
from explorer.ui.transcript.heights import RowHeights
from explorer.ui.transcript.loading import PreparedPath, prepare_path
from explorer.ui.transcript.parts import LongTextDialog, format_size
from explorer.ui.transcript.row_table import RowTable
from explorer.ui.transcript.rows import Metrics, PathInfo
from explorer.ui.transcript.stack import MARGIN, Budget, CardStack

SPACING = 8
OVERSCAN = 1.0
"""Viewport heights built beyond each edge, so a scroll step finds its cards ready."""
KEEP = 3.0
"""Viewport heights beyond each edge after which cards are destroyed."""
REESTIMATE = 0.15
"""Relative width change after which unbuilt rows' heights are guessed again."""
FETCH = 2.0
"""Viewport heights beyond each edge whose content is read ahead of the scroll."""


class TranscriptView(QAbstractScrollArea):
    messageSelected = Signal(int)
    siblingChosen = Signal(int)
    compareRequested = Signal(int)
    contextMenuRequested = Signal(int, QPoint)
    subagentRequested = Signal(str)  # tool_use id of a call that started a subagent
    branchOpened = Signal(int)  # a merge message's link to its side branch (by its tip)
    markerOpened = Signal(int, str)  # a branch point's "unfold" or "restore" link
    loaded = Signal(int)  # conversation id, once its path's rows are in
    contentArrived = Signal()  # the rows near the viewport have their content
    loadFailed = Signal(str)

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.conversation_id: int | None = None
        self.tip: int | None = None
        self.rows = RowTable(PathColumns())
        self.skeletons = LatestRunner(self, threads=1, name="transcript-skeleton")
        self.skeletons.finished.connect(self._apply_skeleton)
        self.skeletons.failed.connect(lambda e: self.loadFailed.emit(f"{type(e).__name__}: {e}"))
        self.content = ContentWindow(store, self)
        self.content.arrived.connect(self._content_arrived)
        self.content.failed.connect(self.loadFailed)
        self.content.unfolded.connect(self._show_unfolded)
        self.estimates = LatestRunner(self, threads=1, name="transcript-estimates")
        self.estimates.finished.connect(self._apply_estimates)
        self.long_text: LongTextDialog | None = None
        self._more = QTimer(self, singleShot=True, interval=0)
        self._more.timeout.connect(lambda: self._relayout())
        self._requested: tuple[int, int | None] | None = None
        self._pending_scroll: int | None = None
        self._pending_select: int | None = None
        self._labels: dict[int, list[str]] = {}
        self.heights = RowHeights((), SPACING)
        self.stack = CardStack(self, lambda: self._more.start())
        self._focus: int | None = None  # the row last scrolled to: its card is built first
        self._message_row: Mapping[int, int] = {}
        self._selected: int | None = None
        self.compare_marks: list[int] = []
        self.live_marks: dict[int, float] = {}  # messages that came in while following
        self.card_context = CardContext()
        self._in_layout = False
        self.card_width_now = 0
        self._estimated_at = 0
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.verticalScrollBar().setSingleStep(40)
        self.viewport().setBackgroundRole(QPalette.ColorRole.Window)
        self.setFrameShape(QFrame.Shape.NoFrame)

    # -- public API ---------------------------------------------------------------
    def load_path(self, conv_id: int, tip: int | None = None) -> None:
        """Show the active path of ``conv_id`` (or the path to ``tip``); returns at once.

        The skeleton is read on a worker and ``loaded`` fires when the rows are in.
        Reloading the same conversation keeps the message at the top of the view in
        place, so switching siblings below it does not throw the reader off.
        """
        self._requested = (conv_id, tip)
        width, metrics = self._card_width(), self._metrics()
        self.skeletons.submit(lambda t: prepare_path(self.store, conv_id, tip, width, metrics, t))

    @property
    def is_loading(self) -> bool:
        """True while the skeleton or the content of the rows on screen is being read."""
        return (self.skeletons.busy or self.content.busy or self.estimates.busy
                or self._more.isActive())

    def shutdown(self) -> None:
        """Cancel every read and wait for the workers (the view stays usable)."""
        self._more.stop()
        for runner in (self.skeletons, self.estimates):
            runner.cancel()
            runner.wait()
        self.content.shutdown()

    def _apply_skeleton(self, prepared: object) -> None:
        assert isinstance(prepared, PreparedPath)
        result = prepared.skeleton
        conv_id = result.conversation_id
        anchor = self._anchor_mid() if conv_id == self.conversation_id else None
        self.conversation_id = conv_id
        self.tip = result.tip
        self._requested = None
        self.stack.clear()
        self._focus = None
        self.rows = prepared.rows
        self.content.reset(self.rows, prepared.message_row)
        if prepared.tip_content is not None:
            self.content.fill(prepared.tip_content)
        self._labels = result.labels
        self._tended = (prepared.notes, prepared.archived)
        info = PathInfo(self.content.tool_names, self._labels, *self._tended,
                        prepared.subagents)
        self.card_context = CardContext(info, self._siblings, self._describe_siblings)
        self._message_row = prepared.message_row
        self.card_width_now = self._card_width()
        self.heights = RowHeights(prepared.heights, SPACING)
        self._estimated_at = prepared.width
        if abs(self.card_width_now - prepared.width) > REESTIMATE * max(prepared.width, 1):
            self._estimate_heights_later()
        self._update_range()
        self.verticalScrollBar().setValue(0)
        jump = self._pending_scroll
        if jump is not None and jump in self._message_row:
            self._scroll_to_row(self._message_row[jump], 0)
        elif anchor is not None and anchor[0] in self._message_row:
            self._scroll_to_row(self._message_row[anchor[0]], anchor[1])
        else:
            self._relayout()
        self._pending_scroll = None
        pending = self._pending_select
        self._pending_select = None
        self.viewport().update()
        self.loaded.emit(conv_id)
        if pending is not None and pending in self._message_row:
            self.select(pending)

    def scroll_to(self, mid: int) -> None:
        """Bring message ``mid``'s card to the top of the view (building it if needed).

        While a path is being read, the jump happens as soon as its rows are in.
        """
        if self._requested is not None:
            self._pending_scroll = mid
            return
        self._scroll_to_row(self._row(mid), 0)

    def scroll_to_end(self) -> None:
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        self._relayout()

    def select(self, mid: int) -> None:
        """Mark ``mid`` selected, make it visible and emit ``messageSelected`` if it changed."""
        if self._requested is not None:
            self._pending_select = mid
            return
        row = self._row(mid)
        if not self._row_visible(row):
            self._scroll_to_row(row, 0)
        if mid == self._selected:
            return
        for i, card in self.stack.cards.items():
            card.set_selected(i == row)
        self._selected = mid
        self.messageSelected.emit(mid)

    def selected(self) -> int | None:
        return self._selected

    def card_for(self, mid: int) -> Card | None:
        """The built card of message ``mid``, or None while it is only a placeholder."""
        return self.stack.cards.get(self._row(mid))

    def live_cards(self) -> list[Card]:
        return [self.stack.cards[i] for i in sorted(self.stack.cards)]

    def message_ids(self) -> list[int]:
        return list(self._message_row)

    def has_message(self, mid: int) -> bool:
        """True when ``mid`` is on the shown path (or on the path being read)."""
        return self._requested is None and mid in self._message_row

    # -- geometry -------------------------------------------------------------------
    def _metrics(self) -> Metrics:
        fm = QFontMetricsF(self.font())
        mono = QFontMetricsF(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        return Metrics(round(fm.lineSpacing()), fm.averageCharWidth(),
                       round(mono.lineSpacing()), mono.averageCharWidth())

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

    def _card_width(self) -> int:
        return max(self.viewport().width() - 2 * MARGIN, 120)

    def _update_range(self) -> None:
        """Size the scroll bar to the stack (the offsets themselves are kept current)."""
        total = self.heights.total + 2 * MARGIN
        page = self.viewport().height()
        bar = self.verticalScrollBar()
        bar.setPageStep(page)
        bar.setRange(0, max(0, total - page))

    def _row(self, mid: int) -> int:
        if mid not in self._message_row:
            raise KeyError(f"message {mid} is not on the shown path")
        return self._message_row[mid]

    def _row_at(self, y: int) -> int:
        return self.heights.row_at(y - MARGIN)

    def _row_visible(self, row: int) -> bool:
        top = self.heights.offset(row) + MARGIN
        value = self.verticalScrollBar().value()
        return value <= top and top + self.heights[row] <= value + self.viewport().height()

    def _anchor(self) -> tuple[int, int]:
        """The row at the top of the viewport and how far into it the view is scrolled."""
        value = self.verticalScrollBar().value()
        row = self._row_at(value + MARGIN)
        return row, value - self.heights.offset(row)

    def _anchor_mid(self) -> tuple[int, int] | None:
        if not self.rows:
            return None
        row, offset = self._anchor()
        return self.rows[row].mid, offset

    def at_end(self) -> bool:
        """True when the last row is in view: a reader there stays there as rows grow."""
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() > 0

    def _keep_place(self, anchor: tuple[int, int], at_end: bool) -> None:
        """After heights changed: the end stays the end, else the anchor row stays still."""
        if at_end:
            self.scroll_to_end()
        else:
            self._scroll_to_row(*anchor)

    def _scroll_to_row(self, row: int, offset: int) -> None:
        self._focus = row
        self._in_layout = True
        try:
            self.verticalScrollBar().setValue(self.heights.offset(row) + offset)
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
            budget = Budget.for_turn()  # shared by the passes while heights settle
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
        self._fetch_window()

    def _window(self, extra: float) -> range:
        value = self.verticalScrollBar().value()
        page = self.viewport().height()
        first = self._row_at(int(value - extra * page))
        last = self._row_at(int(value + page + extra * page))
        return range(first, last + 1)

    # -- reading content near the viewport ---------------------------------------------
    def _fetch_window(self) -> None:
        if self.rows and self.conversation_id is not None:
            self.content.request(self._window(FETCH))

    def _content_arrived(self, filled: bool) -> None:
        self.content.let_go(self._window(KEEP))
        if filled:
            self._relayout()  # placeholders are swapped for cards within the time budget
        if not self.is_loading:
            self.contentArrived.emit()

    def unfold(self, mid: int, index: int) -> None:
        """Read the whole of a folded part off the main thread and show it in a viewer."""
        self.content.unfold(mid, index)

    def _show_unfolded(self, mid: int, index: int, text: str) -> None:
        self.long_text = LongTextDialog(
            f"Message {mid}, part {index + 1} — {format_size(len(text))}", text, self.window())
        self.long_text.show()

    def _describe_siblings(self, ids: list[int], current: int) -> list[str]:
        return sibling_lines(self.store, ids, current)

    def set_compare_marks(self, mids: list[int]) -> None:
        """Badge the cards of messages marked for "compare marked"."""
        self.compare_marks = list(mids)
        for i, card in self.stack.cards.items():
            if self.rows[i].is_message:
                card.set_compare_mark(self.mark_number(card.mid))

    def set_live_marks(self, marks: dict[int, float]) -> None:
        """Badge the cards of messages that came in while following, as strong as given."""
        self.live_marks = dict(marks)
        for i, card in self.stack.cards.items():
            if self.rows[i].is_message:
                card.set_live(self.live_marks.get(card.mid, 0.0))

    def mark_number(self, mid: int) -> int | None:
        return self.compare_marks.index(mid) + 1 if mid in self.compare_marks else None

    def card_resized(self, card: Card) -> None:
        row = self.stack.row_of(card)
        if row is None:
            return
        anchor, at_end = self._anchor(), self.at_end()
        card.updateGeometry()
        self.heights[row] = self.stack.measure(card)
        self._update_range()
        self._keep_place(anchor, at_end)

    def _siblings(self, mid: int) -> list[int]:
        """Read with the content (off the main thread); a row without them has none shown."""
        return self.content.siblings_of.get(mid, [mid])

    # -- Qt events ------------------------------------------------------------------
    def scrollContentsBy(self, dx: int, dy: int) -> None:
        self._relayout()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
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

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.rows:
            return
        painter = QPainter(self.viewport())
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        if self._requested is not None:
            text = "Reading the conversation…"
        elif self.conversation_id is None:
            text = "No conversation chosen."
        else:
            text = "No messages yet."
        painter.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, text)
