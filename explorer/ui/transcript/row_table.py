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
    CONTEXT_START,
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
        self._entry_of = array("i")  # row → message index in the columns, -1 for a marker
        self._markers: dict[int, Row] = {}
        self._filled: dict[int, Row] = {}
        entry_of, markers = self._entry_of, self._markers
        for e, mid in enumerate(ids):
            if mid == context_start and len(entry_of):
                markers[len(entry_of)] = Row(mid, marker=CONTEXT_START)
                entry_of.append(-1)
            entry_of.append(e)
            for mk in after.get(mid, ()):
                markers[len(entry_of)] = Row(mid, marker=mk)
                entry_of.append(-1)

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
        cols, filled, out = self.columns, dict(self._filled), array("i")
        sized = SizedHeights(width, fm).column(cols.kinds, cols.chars)
        for i, e in enumerate(self._entry_of):
            row = filled.get(i)
            if row is not None or e < 0:
                out.append(estimate_height(row or self._markers[i], width, fm))
            else:
                out.append(sized[e])
        return out


class MessageRows(Mapping[int, int]):
    """Message id → the row that shows it, in path order, in two compact arrays."""

    def __init__(self, table: RowTable) -> None:
        rows = array("i", (i for i, e in enumerate(table._entry_of) if e >= 0))
        ids = table.columns.ids
        order = sorted(range(len(rows)), key=ids.__getitem__)
        self._ids = ids
        self._sorted = array("q", (ids[k] for k in order))
        self._rows = array("i", (rows[k] for k in order))

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
