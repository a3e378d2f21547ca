"""The transcript's content window: message content read on a worker for the rows near
the viewport, and let go again when they are far (V2).

The view knows every row of a path from its skeleton; this object fills in the
content of the few the viewport is near (plus a margin), one read per request,
the newest request winning. It keeps the content of at most ``CACHED_ROWS``
rows: beyond that the least recently shown, outside the range the view keeps,
go back to their skeleton. So what a long path holds in memory follows the
screen, not the conversation. Long parts arrive cut at the store's fold limit;
``unfold`` reads one whole, also off the main thread.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

from PySide6.QtCore import QObject, Signal

from explorer.store import Store
from explorer.store.reads_path import PathColumns
from explorer.ui.background.tasks import LatestRunner, TaskRunner, Ticket
from explorer.ui.transcript.loading import WindowContent, read_part, read_window
from explorer.ui.transcript.row_table import RowTable
from explorer.ui.transcript.rows import with_content, without_content

CACHED_ROWS = 600
"""Rows whose content is kept once read; the least recently shown beyond this are let go."""


class ContentWindow(QObject):
    arrived = Signal(bool)  # a read finished; True when some rows got their content
    unfolded = Signal(int, int, str)  # message id, part index, the part's whole text
    whole = Signal(int, int, str)  # the same, asked for to be shown in place
    failed = Signal(str)

    def __init__(self, store: Store, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.rows = RowTable(PathColumns())
        self.message_row: Mapping[int, int] = {}
        self.siblings_of: dict[int, list[int]] = {}
        self.tool_names: dict[str, str] = {}  # kept across paths: the cards hold this dict
        self._cached: OrderedDict[int, None] = OrderedDict()  # rows holding content
        self._fetching: set[int] = set()
        self._gone: set[int] = set()  # asked for but no longer in the store: not asked again
        self.reads = LatestRunner(self, threads=1, name="transcript-content")
        self.reads.finished.connect(self._apply)
        self.reads.failed.connect(lambda e: self.failed.emit(f"{type(e).__name__}: {e}"))
        self.unfolds = LatestRunner(self, threads=1, name="transcript-unfold")
        self.unfolds.finished.connect(self._unfolded)
        self.wholes = TaskRunner(self, threads=1, name="transcript-whole")  # every one counts

    def reset(self, rows: RowTable, message_row: Mapping[int, int], carry: bool = False) -> None:
        """Follow a new path's rows (the view's own list: content is filled in place).

        ``carry``: the new rows are the same path read further (the rest of it above
        the tip), so the content already read goes into them instead of being read again.
        """
        held = WindowContent({r.mid: r.message for r in map(self.rows.__getitem__, self._cached)
                              if r.message is not None}, self.siblings_of, {}) if carry else None
        self.reads.cancel()
        self._fetching.clear()
        self._cached.clear()
        self.siblings_of = {}
        self.rows = rows
        self.message_row = message_row
        if held is not None:
            self.fill(held)

    @property
    def busy(self) -> bool:
        return self.reads.busy or bool(self._fetching) or bool(self.wholes.active)

    @property
    def held(self) -> int:
        """How many rows hold their content now."""
        return len(self._cached)

    def shown(self, i: int) -> None:
        """Row ``i`` got a card: its content is the most recently used."""
        if self.rows[i].message is not None:
            self._cached.pop(i, None)
            self._cached[i] = None

    def request(self, window: range) -> None:
        """Ask for the content of pending rows in ``window`` (newest request wins)."""
        rows, gone = self.rows, self._gone
        wanted = [mid for mid in (rows.mid(i) for i in window if rows.pending(i))
                  if mid not in gone]
        if not wanted or set(wanted) <= self._fetching:
            return
        self._fetching = set(wanted)
        store = self.store
        self.reads.submit(lambda t: _read(store, wanted, t))

    def _apply(self, result: object) -> None:
        assert isinstance(result, WindowContent)
        self._fetching.clear()
        self.arrived.emit(self.fill(result))

    def fill(self, result: WindowContent) -> bool:
        """Put read content into the pending rows it is for; True if any row got some."""
        self._gone.update(set(result.asked) - set(result.messages))  # deleted meanwhile
        self.siblings_of.update(result.siblings)
        self.tool_names.update(result.tool_names)
        for mid, message in result.messages.items():
            i = self.message_row.get(mid)
            if i is not None and self.rows[i].is_pending:
                self.rows[i] = with_content(self.rows[i], message)
                self._cached[i] = None
        return bool(result.messages)

    def let_go(self, keep: range) -> None:
        """Drop the content of the least recently shown rows beyond the cache size."""
        excess = len(self._cached) - CACHED_ROWS
        if excess <= 0:
            return
        for i in [i for i in self._cached if i not in keep][:excess]:
            del self._cached[i]
            self.rows[i] = without_content(self.rows[i])

    def unfold(self, mid: int, index: int) -> None:
        """Read the whole of a folded part off the main thread; ``unfolded`` brings it."""
        store = self.store
        self.unfolds.submit(lambda t: (mid, index, read_part(store, mid, index)))

    def read_whole(self, mid: int, index: int) -> None:
        """Read the whole of a folded part off the main thread; ``whole`` brings it."""
        store = self.store
        self.wholes.run(lambda t: read_part(store, mid, index),
                        on_done=lambda text: self.whole.emit(mid, index, str(text)),
                        on_failed=lambda e: self.failed.emit(f"{type(e).__name__}: {e}"))

    def _unfolded(self, result: object) -> None:
        assert isinstance(result, tuple)
        self.unfolded.emit(int(result[0]), int(result[1]), str(result[2]))

    def shutdown(self) -> None:
        """Cancel the reads and wait for their workers."""
        for runner in (self.reads, self.unfolds):
            runner.cancel()
            runner.wait()
        self.wholes.cancel_all()
        self.wholes.wait()
        self._fetching.clear()


def _read(store: Store, ids: list[int], ticket: Ticket) -> WindowContent:
    ticket.check()
    return read_window(store, ids)
