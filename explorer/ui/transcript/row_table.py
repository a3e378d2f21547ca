"""The rows of a long path without an object per row (V2).

:func:`~explorer.ui.transcript.rows.build_rows` makes a :class:`Row` for every
message, which is right for a short path but on an 80,000-message one costs an
object, an entry and a dictionary slot each, all kept for as long as the path is
shown. A :class:`RowTable` keeps the skeleton's columns, one integer per row
saying which message it shows (or that it is a marker), the few marker rows, and
the rows whose content has been read; any other row is made when it is asked for.
:class:`MessageRows` maps a message id to its row through two sorted arrays.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from explorer.store.reads_path import PathColumns
from explorer.ui.transcript.rows import (
    ARRAY_FROM,
    CONTEXT_START,
    Marker,
    Metrics,
    Row,
    SizedHeights,
    estimate_height,
    markers_after,
)


class RowTable(Sequence[Row]):
    """Every row of a path; ``table[i] = row`` keeps a row with content (or drops it
    back to its skeleton when ``row`` has none)."""

    def __init__(
        self, columns: PathColumns, *, rewinds: Sequence[dict[str, Any]] = (),
        compactions: Sequence[dict[str, Any]] = (), context_start: int | None = None,
        clean_tip: int | None = None,
    ) -> None:
        self.columns = columns
        ids = columns.ids
        after = markers_after(rewinds, compactions, clean_tip, ids[-1] if len(ids) else None)
        self._markers: dict[int, Row] = {}
        self._filled: dict[int, Row] = {}
        self._entry_of = self._place(ids, after, context_start)

    def _place(self, ids: array[int], after: dict[int, list[Marker]],
               context_start: int | None) -> array[int]:
        """Row → message index in the columns, -1 for a marker: the messages in order,
        with the few markers put in where their messages are (found by a search of the
        ids, not a look at each of them)."""
        entry_of = array("i")
        # Markers come only after or before messages the path holds (an array search in C).
        wanted = sorted({*after, *([context_start] if context_start is not None else [])})
        places: list[int] = []
        if wanted and len(ids) >= ARRAY_FROM:
            import numpy as np  # not before the window's first frame

            places = np.flatnonzero(np.isin(np.frombuffer(ids, np.int64), wanted)).tolist()
        elif wanted:
            marked = set(wanted)
            places = [e for e, mid in enumerate(ids) if mid in marked]
        done = 0
        for e in places:
            mid = ids[e]
            entry_of.extend(range(done, e))
            if mid == context_start and len(entry_of):
                self._markers[len(entry_of)] = Row(mid, marker=CONTEXT_START)
                entry_of.append(-1)
            entry_of.append(e)
            for mk in after.get(mid, ()):
                self._markers[len(entry_of)] = Row(mid, marker=mk)
                entry_of.append(-1)
            done = e + 1
        entry_of.extend(range(done, len(ids)))
        return entry_of

    def __len__(self) -> int:
        return len(self._entry_of)

    @overload
    def __getitem__(self, i: int) -> Row: ...
    @overload
    def __getitem__(self, i: slice) -> list[Row]: ...
    def __getitem__(self, i: int | slice) -> Row | list[Row]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        row = self._filled.get(i)
        if row is not None:
            return row
        e = self._entry_of[i]  # IndexError past the end, as a list
        if e < 0:
            return self._markers[i]
        return Row(self.columns.ids[e], entry=self.columns[e])

    def __setitem__(self, i: int, row: Row) -> None:
        if row.message is None and row.marker is None:
            self._filled.pop(i, None)
        else:
            self._filled[i] = row

    def __iter__(self) -> Iterator[Row]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def mid(self, i: int) -> int:
        """The message a row shows or follows, without making the row."""
        e = self._entry_of[i]
        return self.columns.ids[e] if e >= 0 else self._markers[i].mid

    def pending(self, i: int) -> bool:
        """True for a message row whose content has not been read, without making the row."""
        return i not in self._filled and self._entry_of[i] >= 0

    def message_rows(self) -> MessageRows:
        return MessageRows(self)

    def estimates(self, width: int, fm: Metrics) -> array[int]:
        """A height guess for every row (off the main thread: 80,000 rows take a while)."""
        cols = self.columns
        sized = SizedHeights(width, fm).column(cols.kind_sets, cols.kind_at, cols.chars)
        if len(self._entry_of) >= ARRAY_FROM:
            import numpy as np

            entry_of = np.frombuffer(self._entry_of, np.int32)
            out = array("i", np.frombuffer(sized, np.int32)[np.maximum(entry_of, 0)].tobytes())
        else:
            out = array("i", (sized[e] if e >= 0 else 0 for e in self._entry_of))
        for i, row in self._markers.items():
            out[i] = estimate_height(row, width, fm)
        for i, row in self._filled.items():
            out[i] = estimate_height(row, width, fm)
        return out


class MessageRows(Mapping[int, int]):
    """Message id → the row that shows it, in path order, in two compact arrays."""

    def __init__(self, table: RowTable) -> None:
        ids = self._ids = table.columns.ids
        if len(table._entry_of) < ARRAY_FROM:
            rows = array("i", (i for i, e in enumerate(table._entry_of) if e >= 0))
            order = sorted(range(len(rows)), key=ids.__getitem__)
            self._sorted = array("q", (ids[k] for k in order))
            self._rows = array("i", (rows[k] for k in order))
            return
        import numpy as np

        at = np.flatnonzero(np.frombuffer(table._entry_of, np.int32) >= 0)
        by_id = np.argsort(np.frombuffer(ids, np.int64), kind="stable")
        self._sorted = array("q", np.frombuffer(ids, np.int64)[by_id].tobytes())
        self._rows = array("i", at[by_id].astype(np.int32).tobytes())

    def __getitem__(self, mid: int) -> int:
        k = bisect_left(self._sorted, mid)
        if k == len(self._sorted) or self._sorted[k] != mid:
            raise KeyError(mid)
        return self._rows[k]

    def __contains__(self, mid: object) -> bool:
        if not isinstance(mid, int):
            return False
        k = bisect_left(self._sorted, mid)
        return k < len(self._sorted) and self._sorted[k] == mid

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)
