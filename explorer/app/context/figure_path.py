"""One context path's sums over the figure's kept costs, grown and cut as the path changes.

Summing a 60,000-message context part by part (and walking it again to learn the
estimator's correction) was the figure's main cost on every refresh, even when one
message had been added. These sums hold, for the path last shown, what the figure
needs from it: how many messages of each role, how many text parts of each bucket
cost each raw count (a text part's corrected cost depends only on its raw count and
the factor, which is learned anew each time), the image tokens by bucket, and each
measured answer's place with the raw cost before it. Appending messages adds their
rows; moving the tip back or to a sibling branch near the end takes the old tail's
rows off first. The figure then costs in work proportional to the distinct raw counts
and the measured answers, not to the path's length.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence

import numpy as np

from explorer.app.context.costs import CostTable
from explorer.compaction.context import PART_NAMES, ContextUsage
from explorer.compaction.estimate import Estimator
from explorer.compaction.target import Target

_SHIFT = 4  # a text part's key: raw << _SHIFT | bucket (fewer than 16 buckets)
assert len(PART_NAMES) < 1 << _SHIFT


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading ids two paths of one tree share.

    On a path from the root, the id at a place is the ancestor at that depth: two paths
    holding the same id at a place hold the same ids before it. So the first place they
    differ is found by halving, looking at single ids (no copy, no long compare)."""
    n = min(len(a), len(b))
    if n == 0 or a[0] != b[0]:
        return 0
    if a[n - 1] == b[n - 1]:
        return n
    low, high = 1, n - 1  # a[low - 1] == b[low - 1], a[high] != b[high]
    while low < high:
        mid = (low + high) // 2
        if a[mid] == b[mid]:
            low = mid + 1
        else:
            high = mid
    return low


def _put(column: array[int], values: np.ndarray) -> None:
    """Append numpy integers to an array column, in C."""
    column.frombytes(values.astype(column.typecode).tobytes())


class PathSums:
    """The sums of one path's rows in a :class:`CostTable`; ``ids[k]``'s costs are row
    ``rows[k]``."""

    def __init__(self, costs: CostTable) -> None:
        self.costs = costs
        self.ids = array("q")
        self.rows = array("i")
        self.role_count = [0] * len(PART_NAMES)
        self.image_tokens = [0] * len(PART_NAMES)
        self.text_parts: dict[int, int] = {}  # raw << _SHIFT | bucket → how many parts
        self.text_total = 0  # raw text of the whole path (with the message overheads)
        self.image_total = 0
        # each measured answer's place, the raw text and image costs before it, and its row
        self.measured_at, self.text_before = array("q"), array("q")
        self.image_before, self.measured_rows = array("q"), array("i")
        self.records = array("i")  # the rows with records, in path order

    def __len__(self) -> int:
        return len(self.ids)

    def extend(self, ids: list[int], rows: Sequence[int]) -> None:
        """Append messages ``ids`` whose costs are ``rows`` (a range of new rows: summed
        in columns, with no step per message or part)."""
        if isinstance(rows, range) and rows.step == 1 and len(rows) > 1:
            self._fold_run(rows.start, rows.stop)
            self._append_run(ids, rows.start, rows.stop)
        elif rows:
            self._fold(ids, rows, 1)

    def _fold_run(self, first: int, end: int) -> None:
        c = self.costs
        roles = np.frombuffer(bytes(c.role[first:end]), np.uint8)
        for k, n in enumerate(np.bincount(roles, minlength=len(PART_NAMES)).tolist()):
            self.role_count[k] += n
        low, high = c.part_starts[first], c.part_starts[end]
        bucket = np.frombuffer(bytes(c.part_bucket[low:high]), np.uint8).astype(np.int64)
        raw = np.frombuffer(c.part_raw[low:high], np.int64)
        image = np.frombuffer(bytes(c.part_image[low:high]), np.uint8) != 0
        if image.any():
            tokens = np.zeros(len(PART_NAMES), np.int64)
            np.add.at(tokens, bucket[image], raw[image])
            for k, n in enumerate(tokens.tolist()):
                self.image_tokens[k] += n
        keys, counts = np.unique(raw[~image] << _SHIFT | bucket[~image], return_counts=True)
        text_parts = self.text_parts
        for key, n in zip(keys.tolist(), counts.tolist(), strict=True):
            text_parts[key] = text_parts.get(key, 0) + n

    def _append_run(self, ids: list[int], first: int, end: int) -> None:
        c = self.costs
        text = np.frombuffer(c.text[first:end], np.int64)
        image = np.frombuffer(c.image[first:end], np.int64)
        at = np.flatnonzero(np.frombuffer(c.measured[first:end], np.int64))
        _put(self.measured_at, len(self.ids) + at)
        _put(self.text_before, self.text_total + (np.cumsum(text) - text)[at])
        _put(self.image_before, self.image_total + (np.cumsum(image) - image)[at])
        _put(self.measured_rows, first + at)
        self.records.extend(sorted(r for r in c.records if first <= r < end))
        self.text_total += int(text.sum())
        self.image_total += int(image.sum())
        self.ids.extend(ids)
        self.rows.extend(range(first, end))

    def cut(self, length: int) -> None:
        """Take the rows past ``length`` off (the tip moved back or to another branch)."""
        if length >= len(self.ids):
            return
        self._fold(self.ids[length:], self.rows[length:], -1)

    def _fold(self, ids: Sequence[int], rows: Sequence[int], sign: int) -> None:
        c = self.costs
        role, starts, bucket, raw, image = (c.role, c.part_starts, c.part_bucket, c.part_raw,
                                            c.part_image)
        text_parts, role_count, image_tokens = self.text_parts, self.role_count, self.image_tokens
        for r in rows:
            role_count[role[r]] += sign
            for k in range(starts[r], starts[r + 1]):
                if image[k]:
                    image_tokens[bucket[k]] += sign * raw[k]
                else:
                    key = raw[k] << _SHIFT | bucket[k]
                    left = text_parts.get(key, 0) + sign
                    if left:
                        text_parts[key] = left
                    else:
                        del text_parts[key]
        if sign > 0:
            self._append(ids, rows)
        else:
            self._drop(len(self.ids) - len(ids))

    def _append(self, ids: Sequence[int], rows: Sequence[int]) -> None:
        c = self.costs
        text, image, measured, records = c.text, c.image, c.measured, c.records
        place = len(self.ids)
        for k, r in enumerate(rows):
            if measured[r]:
                self.measured_at.append(place + k)
                self.text_before.append(self.text_total)
                self.image_before.append(self.image_total)
                self.measured_rows.append(r)
            if r in records:
                self.records.append(r)
            self.text_total += text[r]
            self.image_total += image[r]
        self.ids.extend(ids)
        self.rows.extend(rows)

    def _drop(self, length: int) -> None:
        c = self.costs
        gone = self.rows[length:]
        self.text_total -= sum(c.text[r] for r in gone)
        self.image_total -= sum(c.image[r] for r in gone)
        kept = bisect_left(self.measured_at, length)
        for column in (self.measured_at, self.text_before, self.image_before,
                       self.measured_rows):
            del column[kept:]
        dropped = set(gone)
        while self.records and self.records[-1] in dropped:
            self.records.pop()
        del self.ids[length:]
        del self.rows[length:]

    def usage(self, estimator: Estimator, target: Target) -> ContextUsage:
        """``context_usage`` of the path: the same sums ``planner.usage`` makes."""
        self._learn(estimator)
        correct = estimator.correct
        overhead = correct(estimator.rules.message_overhead)
        totals = [n * overhead + i for n, i in zip(self.role_count, self.image_tokens,
                                                   strict=True)]
        mask = (1 << _SHIFT) - 1
        for key, n in self.text_parts.items():
            totals[key & mask] += n * correct(key >> _SHIFT)
        parts = dict(zip(PART_NAMES, totals, strict=True))
        parts["overhead"] = estimator.overhead
        measured, at = None, None
        if self.measured_rows:  # the last measured prompt plus the estimate of what followed
            row = self.measured_rows[-1]
            measured = (self.costs.measured[row] + correct(self.text_total - self.text_before[-1])
                        + self.image_total - self.image_before[-1])
            at = self.ids[self.measured_at[-1]]
        return ContextUsage(
            family=estimator.family, window=target.window, output_reserve=target.output_reserve,
            parts=parts, estimated_total=sum(parts.values()), measured_total=measured,
            measured_at=at, factor=estimator.factor)

    def _learn(self, estimator: Estimator) -> None:
        """What ``Estimator.learn_from_path`` learns: image prices first, then each answer's
        count against the raw cost before it (or the request it records it was sent), fed
        as one entry for the messages between two answers and one per answer."""
        c = self.costs
        for r in self.records:
            estimator.learn_image_price_record(c.records[r][1])
        counts: list[tuple[int, int, int | None]] = []
        sent: dict[int, tuple[int, int]] = {}
        text = image = 0
        for before_text, before_image, r in zip(self.text_before, self.image_before,
                                                self.measured_rows, strict=True):
            if (before_text, before_image) != (text, image):
                counts.append((before_text - text, before_image - image, None))
            record = c.records.get(r)
            if record is not None:
                found = estimator.sent_from_record(record[0])
                if found is not None:
                    sent[len(counts)] = found
            counts.append((c.text[r], c.image[r], c.measured[r]))
            text, image = before_text + c.text[r], before_image + c.image[r]
        estimator.learn_from_counts(counts, sent)
