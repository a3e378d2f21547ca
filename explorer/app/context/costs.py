"""The context figure's kept costs in columns: a few integers per message, not objects.

The figure keeps every costed message's raw costs for as long as the panel lives.
Kept as one object per message (with a tuple per part and a signature tuple) the
60,000 messages of a 100k session's context cost ~15 MB of small objects, made
chunk by chunk between the messages read to cost them, so they also pinned the
allocator's pages those reads used. Here a row is a handful of array cells; a
message's parts are a slice of three part columns. Rows are found by id through a
sorted index that new rows join once per refresh.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from itertools import accumulate

FEW = 512
"""New rows placed one by one in the sorted index; more (in no order) sort it again."""


class CostTable:
    """One row per costed message (a message costed again gets a new row)."""

    def __init__(self) -> None:
        self.ids = array("q")
        self.sig_parts = array("q")  # its parts' count and highest row id: changes if they do
        self.sig_top = array("q")
        self.text = array("q")  # raw text tokens with the message overhead
        self.image = array("q")
        self.measured = array("q")  # the prompt count its usage holds; 0: none
        self.role = bytearray()  # its role's bucket
        self.part_starts = array("q", [0])
        self.part_bucket = bytearray()
        self.part_raw = array("q")
        self.part_image = bytearray()
        self.records: dict[int, tuple[object, object]] = {}  # row → (request, image price)
        self.prices: dict[str, int] = {}  # "t:" tool name, "i:" image size → raw tokens
        self._keys = array("q")  # sorted ids and their rows
        self._rows = array("i")
        self._merged = 0  # rows below this are in the index; later ones join at ``merge``

    def __len__(self) -> int:
        return len(self.ids)

    def row(self, mid: int) -> int:
        """The message's row as of the last :meth:`merge`, or -1.

        Rows added since are not found yet: a refresh costs each id of its path once,
        and keeps no Python object per new row (ints made while messages are read
        would pin the allocator's pages those reads freed)."""
        keys = self._keys
        k = bisect_left(keys, mid)
        return self._rows[k] if k < len(keys) and keys[k] == mid else -1

    @property
    def indexed(self) -> bool:
        """Whether any row can be found by :meth:`row` (a first refresh finds none)."""
        return len(self._keys) > 0

    def signature(self, row: int) -> tuple[int, int]:
        return self.sig_parts[row], self.sig_top[row]

    def add(self, mid: int, signature: tuple[int, int], text: int, image: int,
            measured: int | None, role: int, parts: Sequence[tuple[int, int, bool]],
            request: object = None, image_price: object = None) -> None:
        row = len(self.ids)
        self.ids.append(mid)
        self.sig_parts.append(signature[0])
        self.sig_top.append(signature[1])
        self.text.append(text)
        self.image.append(image)
        self.measured.append(measured or 0)
        self.role.append(role)
        for bucket, raw, is_image in parts:
            self.part_bucket.append(bucket)
            self.part_raw.append(raw)
            self.part_image.append(1 if is_image else 0)
        self.part_starts.append(len(self.part_raw))
        if request is not None or image_price is not None:
            self.records[row] = (request, image_price)

    def add_columns(self, ids: array[int], part_counts: array[int], part_tops: array[int],
                    text: array[int], image: array[int], measured: array[int], role: bytes,
                    part_bucket: bytes, part_raw: array[int], part_image: bytes) -> None:
        """Rows for many messages at once, as columns (``context_figure_columns``): each
        message's parts are the next ``part_counts[k]`` of the part columns, in order."""
        if len(part_bucket) != sum(part_counts):
            raise ValueError("the part columns do not hold the messages' parts")
        self.ids.extend(ids)
        self.sig_parts.extend(part_counts)
        self.sig_top.extend(part_tops)
        self.text.extend(text)
        self.image.extend(image)
        self.measured.extend(measured)
        self.role.extend(role)
        ends = accumulate(part_counts, initial=self.part_starts[-1])
        next(ends)  # (the last row's end, already there)
        self.part_starts.extend(ends)
        self.part_bucket.extend(part_bucket)
        self.part_raw.extend(part_raw)
        self.part_image.extend(part_image)

    def merge(self) -> None:
        """Fold the rows added since the last merge into the sorted index (a message's
        latest row wins)."""
        if self._merged == len(self.ids):
            return
        fresh = range(self._merged, len(self.ids))
        if self._ascending(fresh):  # a path's new messages: ids above every kept one
            self._keys.extend(self.ids[fresh.start:])
            self._rows.extend(fresh)
        elif len(fresh) <= FEW:  # a few costed again: each put in its place
            for row in fresh:
                self._place(self.ids[row], row)
        else:
            self._rebuild()
        self._merged = len(self.ids)

    def _ascending(self, fresh: range) -> bool:
        """Whether the new rows' ids rise and lie above the index's last key (checked in
        Python steps, which let the window's thread take its turns)."""
        ids = self.ids
        last = self._keys[-1] if self._keys else -1
        for row in fresh:
            if ids[row] <= last:
                return False
            last = ids[row]
        return True

    def _place(self, mid: int, row: int) -> None:
        keys = self._keys
        k = bisect_left(keys, mid)
        if k < len(keys) and keys[k] == mid:
            self._rows[k] = row
        else:
            keys.insert(k, mid)
            self._rows.insert(k, row)

    def _rebuild(self) -> None:
        """The whole index sorted again (many rows in no order: a sort of every id)."""
        latest = dict(zip(self._keys, self._rows, strict=True))
        ids = self.ids
        for row in range(self._merged, len(ids)):
            latest[ids[row]] = row
        keys = sorted(latest)
        self._keys = array("q", keys)
        self._rows = array("i", (latest[k] for k in keys))

    def rows_for(self, ids: Sequence[int]) -> array[int]:
        """Each id's row, in order (every id must have been costed)."""
        out = array("i", bytes(4 * len(ids)))
        for k, mid in enumerate(ids):
            row = self.row(mid)
            if row < 0:
                raise KeyError(mid)
            out[k] = row
        return out

    def parts(self, row: int) -> Iterator[tuple[int, int, bool]]:
        """(bucket, raw tokens, is image) of the message's parts, redacted."""
        for k in range(self.part_starts[row], self.part_starts[row + 1]):
            yield self.part_bucket[k], self.part_raw[k], bool(self.part_image[k])

    def record(self, row: int) -> tuple[object, object]:
        """(request record, per-image price) a measured answer keeps, or (None, None)."""
        return self.records.get(row, (None, None))

    def nbytes(self) -> int:
        arrays = [self.ids, self.sig_parts, self.sig_top, self.text, self.image, self.measured,
                  self.part_starts, self.part_raw, self._keys, self._rows]
        return (sum(a.itemsize * len(a) for a in arrays) + len(self.role)
                + len(self.part_bucket) + len(self.part_image))
