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
anchoring, in :mod:`~explorer.ui.transcript.scrolling`), so the text the reader
is looking at never jumps.

Nothing is read on the main thread (V2): ``load_path`` asks a worker for the
path's skeleton (ids, roles, previews, part sizes) and returns at once. The
worker reads the path's last rows first, with their content, and the view shows
them when it opens at the tip; the rest of the skeleton follows and the rows
grow above the tip without moving it. Rows appear as placeholder cards, and
the content of the rows near the viewport (plus a margin) is read by a second
worker and swapped in when it arrives. Content far from the viewport is let go
again, and part text over a limit is read only up to it (its card offers the
rest on demand), so memory follows the screen, not the conversation.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QCloseEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QWidget

from explorer.app.graph.branch_labels import sibling_lines
from explorer.store import Store
from explorer.ui.background.tasks import LatestRunner
from explorer.ui.transcript.cards import Card, CardContext, MessageCard
from explorer.ui.transcript.fetching import ContentWindow
from explorer.ui.transcript.folding import LongTextDialog, format_size
from explorer.ui.transcript.loading import PreparedPath, prepare_tip_first
from explorer.ui.transcript.path_keeper import PathKeeper
from explorer.ui.transcript.rows import PathInfo
from explorer.ui.transcript.scrolling import KEEP, AnchoredScroll
from explorer.ui.transcript.stack import CardStack

FETCH = 2.0
"""Viewport heights beyond each edge whose content is read ahead of the scroll."""
WHOLE_KEPT = 3
"""Parts shown whole whose text is kept, so their cards show them whole again when rebuilt."""


class TranscriptView(AnchoredScroll):
    messageSelected = Signal(int)
    siblingChosen = Signal(int)
    compareRequested = Signal(int)
    contextMenuRequested = Signal(int, QPoint)
    subagentRequested = Signal(str)  # tool_use id of a call that started a subagent
    branchOpened = Signal(int)  # a merge message's link to its side branch (by its tip)
    markerOpened = Signal(int, str)  # a branch point's "unfold" or "restore" link
    tipShown = Signal(int)  # conversation id, once the path's last rows are in (before the rest)
    loaded = Signal(int)  # conversation id, once its path's rows are in
    contentArrived = Signal()  # the rows near the viewport have their content
    loadFailed = Signal(str)

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.conversation_id: int | None = None
        self.tip: int | None = None
        self.skeletons = LatestRunner(self, threads=1, name="transcript-skeleton")
        self.skeletons.progress.connect(self._apply_tip)
        self.skeletons.finished.connect(self._apply_skeleton)
        self.skeletons.failed.connect(lambda e: self.loadFailed.emit(f"{type(e).__name__}: {e}"))
        self.content = ContentWindow(store, self)
        self.keeper = PathKeeper(store, lambda: self.is_loading, self)
        self.content.arrived.connect(self._content_arrived)
        self.content.failed.connect(self.loadFailed)
        self.content.unfolded.connect(self._show_unfolded)
        self.content.whole.connect(self._show_whole)
        self.whole_texts: OrderedDict[tuple[int, int], str] = OrderedDict()
        self.long_text: LongTextDialog | None = None
        self._requested: tuple[int, int | None] | None = None
        self._partial = False  # only the path's last rows are shown; the rest is being read
        self._tip_built = threading.Event()  # set once the tip's cards are built (or not wanted)
        self._pending_scroll: int | None = None
        self._pending_select: int | None = None
        self.stack = CardStack(self, self._more.start)
        self._message_row: Mapping[int, int] = {}
        self._selected: int | None = None
        self.compare_marks: list[int] = []
        self.live_marks: dict[int, float] = {}  # messages that came in while following
        self.card_context = CardContext()
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.viewport().setBackgroundRole(QPalette.ColorRole.Window)

    # -- public API ---------------------------------------------------------------
    def load_path(self, conv_id: int, tip: int | None = None) -> None:
        """Show the active path of ``conv_id`` (or the path to ``tip``); returns at once.

        The skeleton is read on a worker and ``loaded`` fires when the rows are in
        (``tipShown`` before, when the view opens at the tip and shows its rows first).
        Reloading the same conversation keeps the message at the top of the view in
        place, so switching siblings below it does not throw the reader off.
        """
        self._requested = (conv_id, tip)
        box, metrics = self.width_box, self._metrics()
        self._tip_built.set()  # an older request's worker does not wait for its tip
        built = self._tip_built = threading.Event()
        self.skeletons.submit(lambda t: prepare_tip_first(
            self.store, conv_id, tip, lambda: box[0], metrics, t, built))

    @property
    def is_loading(self) -> bool:
        """True while the skeleton or the content of the rows on screen is being read."""
        return (self.skeletons.busy or self.content.busy or self.estimates.busy
                or self._more.isActive() or self._fetch_soon.isActive())

    def shutdown(self) -> None:
        """Cancel every read and wait for the workers (the view stays usable)."""
        self._more.stop()
        self._fetch_soon.stop()
        self._tip_built.set()
        for runner in (self.skeletons, self.estimates):
            runner.cancel()
            runner.wait()
        self.content.shutdown()
        self.keeper.shutdown()

    def _apply_tip(self, prepared: object) -> None:
        """The path's last rows, read before the rest: shown when the view opens at one of
        them in another conversation (a reload of the one shown keeps its rows meanwhile)."""
        assert isinstance(prepared, PreparedPath)
        shown = prepared.skeleton.conversation_id == self.conversation_id and bool(self.rows)
        if not shown and self._pending_scroll in prepared.message_row:
            self._take(prepared)
            self._partial = True
            self._show_pending(None)
            self.tipShown.emit(prepared.skeleton.conversation_id)
        self._tip_built.set()

    def _apply_skeleton(self, prepared: object) -> None:
        assert isinstance(prepared, PreparedPath)
        conv_id = prepared.skeleton.conversation_id
        grown = self._partial and self._requested is None
        anchor = self._anchor_mid() if conv_id == self.conversation_id else None
        at_end = grown and self.verticalScrollBar().value() >= self.verticalScrollBar().maximum()
        kept = self.stack.detach() if grown else {}
        self._take(prepared, carry=grown)
        self._partial = False
        if kept:
            self.stack.attach(kept, self._message_row, self._changed_for)
            self._update_range()
        self._show_pending(None if at_end else anchor, at_end)
        self.keeper.offer(prepared.skeleton.unkept, prepared.skeleton.entries)
        self.loaded.emit(conv_id)

    def _take(self, prepared: PreparedPath, carry: bool = False) -> None:
        """Follow ``prepared``'s rows (``carry``: keep the content the rows shown have)."""
        result = prepared.skeleton
        self.conversation_id = result.conversation_id
        self.tip = result.tip
        self._requested = None
        self.stack.clear()
        self._focus = None
        self.rows = prepared.rows
        self.content.reset(self.rows, prepared.message_row, carry)
        if prepared.tip_content is not None:
            self.content.fill(prepared.tip_content)
        info = PathInfo(self.content.tool_names, result.labels, prepared.notes,
                        prepared.archived, prepared.subagents)
        self.card_context = CardContext(info, self._siblings, self._describe_siblings)
        self._message_row = prepared.message_row
        self._take_heights(prepared.heights, prepared.width)
        self._update_range()

    def _changed_for(self, mid: int) -> bool:
        """Whether the whole path's notes or archived alternatives change ``mid``'s card."""
        info = self.card_context.info
        return mid in info.notes or not info.archived.isdisjoint(self._siblings(mid))

    def _show_pending(self, anchor: tuple[int, int] | None, at_end: bool = False) -> None:
        """Scroll where asked while the path was read (else keep ``anchor``), then select."""
        jumped = self._place(self._message_row, self._pending_scroll, anchor, at_end)
        if jumped or not self._partial:
            self._pending_scroll = None
        self.viewport().update()
        pending = self._pending_select
        if pending is not None and pending in self._message_row:
            self._pending_select = None
            self.select(pending)
        elif not self._partial:
            self._pending_select = None

    def _waiting_for(self, mid: int) -> bool:
        """True while ``mid``'s row may still come: the path, or the rest of it, is being read."""
        return self._requested is not None or (self._partial and mid not in self._message_row)

    def scroll_to(self, mid: int) -> None:
        """Bring message ``mid``'s card to the top of the view (building it if needed).

        While a path is being read, the jump happens as soon as its rows are in.
        """
        if self._waiting_for(mid):
            self._pending_scroll = mid
            return
        self._scroll_to_row(self._row(mid), 0, jump=True)

    def select(self, mid: int) -> None:
        """Mark ``mid`` selected, make it visible and emit ``messageSelected`` if it changed."""
        if self._waiting_for(mid):
            self._pending_select = mid
            return
        row = self._row(mid)
        if not self._row_visible(row):
            self._scroll_to_row(row, 0, jump=True)
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
        """True when ``mid`` is on the rows shown (not while a new path is being read)."""
        return self._requested is None and mid in self._message_row

    def _row(self, mid: int) -> int:
        if mid not in self._message_row:
            raise KeyError(f"message {mid} is not on the shown path")
        return self._message_row[mid]

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

    def expand(self, mid: int, index: int) -> None:
        """Show a folded part whole in its card; its text is read off the main thread."""
        text = self.whole_texts.get((mid, index))
        if text is not None:
            self._show_whole(mid, index, text)
        else:
            self.content.read_whole(mid, index)

    def _show_whole(self, mid: int, index: int, text: str) -> None:
        self.whole_texts[(mid, index)] = text
        self.whole_texts.move_to_end((mid, index))
        while len(self.whole_texts) > WHOLE_KEPT:
            self.whole_texts.popitem(last=False)
        card = self.card_for(mid) if mid in self._message_row else None
        if isinstance(card, MessageCard):
            card.show_whole(index, text)

    def restore_wholes(self, card: MessageCard) -> None:
        """A rebuilt card shows whole again the parts its reader had shown whole."""
        for (mid, index), text in list(self.whole_texts.items()):
            if mid == card.mid and index in card.notes:
                card.show_whole(index, text)

    def forget_whole(self, mid: int, index: int) -> None:
        self.whole_texts.pop((mid, index), None)

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

    def _siblings(self, mid: int) -> list[int]:
        """Read with the content (off the main thread); a row without them has none shown."""
        return self.content.siblings_of.get(mid, [mid])

    # -- Qt events ------------------------------------------------------------------
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
