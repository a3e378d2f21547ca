"""The context panel's figure, estimated once per message and reused while the path grows.

``planner.usage`` reads every message of the active context and estimates each part
twice (to learn the correction from the stored counts, then to split the figure by
part); on a 100,000-message session that is a minute of work and hundreds of MB each
time the tip moves. Here each message's raw costs (per part, in the target's family,
after the redactor, as ``planner.usage`` costs them) are kept, keyed by the message
id and checked against its parts' row ids, so a refresh reads only messages it has
not costed (new ones at the end of a grown path, or a branch's own), in chunks. The
path's sums are kept too (:class:`PathSums`): a grown path adds its new messages, a
tip moved back or to a near branch takes the old tail off, and nothing at all is read
again when the file has not changed since the last figure (SQLite's ``data_version``).
The result equals ``planner.usage`` on the same context: the same estimator learns from
the same counts. A big conversation's figure is also kept in the file for the next start
(:mod:`explorer.app.kept.figure`), under the conversation's revision and the target.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
from array import array
from collections.abc import Callable, Sequence

import numpy as np

from explorer.app.context.costs import CostTable
from explorer.app.context.figure_columns import cost_columns
from explorer.app.context.figure_path import PathSums, common_prefix
from explorer.app.context.sizes import sizes_serve
from explorer.app.kept import figure as kept_figure
from explorer.app.views.meta_records import NOT_SENT
from explorer.compaction.context import PART_NAMES, ContextUsage, part_bucket
from explorer.compaction.estimate import (
    IMAGE_PRICE_KEY,
    REQUEST_KEY,
    Estimator,
    measured_prompt,
)
from explorer.compaction.planner import redacted
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.store.meta_keys import MARKED, MARKED_ROWS
from explorer.store.rows import db_id, load_messages
from explorer.tree.model import Message

CHUNK = 1000
"""Messages read and costed at a time; the caller's ``check`` runs between chunks."""
REMEMBERED = 400_000
"""Costed messages kept (about 70 B each); beyond it the cache starts again."""
FOUND_STALE = 32
"""Changed messages looked for by place in the kept path; more, and its sums start again."""

_BUCKET = {name: i for i, name in enumerate(PART_NAMES)}


class FileChanges:
    """How many commits the file has seen, as one connection counts them.

    SQLite's ``data_version`` moves when another connection (the store's writer, which
    makes every write) commits; but each connection counts apart, and the figure is
    made on whichever pool thread runs it. So one of the store's readers (they may be
    used from any thread) is asked every time: equal counts, an unchanged file."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._conn: sqlite3.Connection | None = None

    def count(self) -> int:
        if self._conn is None:
            self._conn = self.store.reader
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])


class ContextFigure:
    """Costs the active context of conversations for one target family at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._costs = CostTable()
        self._costing: tuple[object, ...] | None = None
        self._top = 0  # the highest part id whose changes are in ``_stale``
        self._stale: set[int] = set()  # costed messages given parts since they were costed
        self._stale_off: set[int] = set()  # of them, those not on the path the sums hold
        self._lock = threading.Lock()
        self._sums = PathSums(self._costs)
        self._kept: tuple[int, array[int], list[int]] = (0, array("q"), [])  # conv, path,
        # the places of its records not sent
        self._changes = FileChanges(store)
        self._last: tuple[tuple[object, ...], ContextUsage, int] | None = None  # the last
        # figure and its length, by what it was made of (while the file is unchanged)
        self.costed = 0  # messages read and estimated since this figure was made
        self.read_texts = 0  # of them, costed from their text (not sized yet)
        self.looked_up = 0  # messages whose kept costs were found by id for the path's sums
        self.checked_unsent = 0  # messages looked at for records a tool kept for itself
        self.length = 0  # the last figure's context length
        self.stamp: tuple[object, ...] | None = None  # the last figure's conversation, target
        # and the file's commit count: equal stamps, equal figures (None: a redactor no
        # stored size foresees, so nothing is reused)

    def context_ids(self, conv_id: int) -> list[int]:
        """The active context's ids, as ``compacting.active_context`` cuts it (without the
        records a tool kept for itself; only messages new since the last call are looked
        at for those, in chunks)."""
        conv = self.store.conversation(conv_id)
        end = conv.clean_tip_id if conv.clean_tip_id is not None else conv.tip_id
        if end is None:
            return []
        ids = self.store.path_ids(end)
        start = conv.context_start_id
        kept = ids[ids.index(start):] if start in ids else ids
        was_conv, was, unsent = self._kept
        if was_conv != conv_id:
            was, unsent = array("q"), []
        same = common_prefix(was, kept)
        del was[same:]
        unsent = [p for p in unsent if p < same]
        self._kept = (conv_id, was, unsent)
        fresh = kept[same:]
        if fresh:  # one read of the marked messages in the new ids' span (a partial index)
            self.checked_unsent += len(fresh)
            found = _not_sent(self.store, conv_id, min(fresh), max(fresh))
            if found:
                at = np.flatnonzero(np.isin(np.asarray(fresh, dtype=np.int64),
                                            np.fromiter(found, np.int64, len(found))))
                unsent += [same + int(k) for k in at]
            was.extend(fresh)
        if not unsent:
            return kept
        out: list[int] = []
        last = 0
        for p in unsent:
            out += kept[last:p]
            last = p + 1
        return out + kept[last:]

    def usage(self, conv_id: int, target: Target,
              check: Callable[[], None] = lambda: None) -> ContextUsage:
        """What fills ``target``'s window on the conversation's active context; the last
        figure again, read from nothing, when the file has not changed since."""
        with self._lock:
            key = ((conv_id, target, target.redactor is not None, self._changes.count())
                   if sizes_serve(target) else None)  # (a target's equality skips its redactor)
            self.stamp = key
            last = self._last
            if key is not None and last is not None and last[0] == key:
                self.length = last[2]
                return _copy(last[1])
            at = (None if key is None  # read before anything else is
                  else self.store.revision(conv_id, kept_figure.KEPT_FROM))
            found = None if at is None else kept_figure.load(self.store, conv_id, at, target)
            if found is not None:  # the conversation is as it was when this was costed
                usage, self.length = found
            else:
                ids = self.context_ids(conv_id)
                estimator = target.estimator()
                sums = self._sums_for(ids, target, estimator, check)
                usage = sums.usage(estimator, target)
                self.length = len(ids)
                if at is not None:
                    kept_figure.keep(self.store, conv_id, at, target, usage, len(ids))
            self._last = None if key is None else (key, usage, self.length)
            return _copy(usage)

    def _sums_for(self, ids: list[int], target: Target, estimator: Estimator,
                  check: Callable[[], None]) -> PathSums:
        """The path's sums: the kept ones cut where the path (or a message's parts) changed,
        then the rest of the path added chunk by chunk, costing the messages not costed yet."""
        costing = (estimator.family, repr(target.images), target.redactor is not None)
        if costing != self._costing or len(self._costs) > REMEMBERED:
            self._costs, self._costing, self._stale = CostTable(), costing, set()
            self._stale_off = set()
            self._sums = PathSums(self._costs)
        costs, sums = self._costs, self._sums
        top = int(self.store.reader.execute("SELECT coalesce(max(id), 0) FROM parts").fetchone()[0])
        if top > self._top:  # parts are only ever added: a newer one marks its message changed
            if costs.indexed:  # (nothing costed yet: nothing to mark)
                self._stale |= {m for m in self._changed_since(self._top) if costs.row(m) >= 0}
            self._top = top
        sums.cut(self._unchanged(sums, ids))
        run: tuple[list[int], range] = ([], range(0))  # new rows in a row: summed at once
        try:
            for first in range(len(sums), len(ids), CHUNK):
                check()
                chunk = ids[first:first + CHUNK]
                rows = self._rows(chunk, target, estimator)
                if isinstance(rows, range) and (not run[1] or run[1].stop == rows.start):
                    run = (run[0] + chunk, range(run[1].start if run[1] else rows.start,
                                                 rows.stop))
                    continue
                sums.extend(*run)
                run = ([], range(0))
                sums.extend(chunk, rows)
        finally:
            sums.extend(*run)  # what a stopped refresh costed is kept too
            costs.merge()
        # Every changed message on the path was costed again: those left are elsewhere, and
        # are costed again only if a path takes them in (not looked for in the sums again).
        self._stale_off |= self._stale
        self._stale.clear()
        return sums

    def _unchanged(self, sums: PathSums, ids: list[int]) -> int:
        """How many of the kept sums' leading messages ``ids`` still starts with, unchanged."""
        same = common_prefix(sums.ids, ids)
        stale = self._stale
        if not stale or not same:
            return same
        near = sums.ids[max(0, same - CHUNK):same]  # a grown answer is near the end
        places = [same - len(near) + k for k, i in enumerate(near) if i in stale]
        farther = stale.difference(near)
        if farther:  # a changed message of this conversation further back, if any
            here = _in_conversation(self.store, self._kept[0], farther)
            if len(here) > FOUND_STALE:
                return 0
            head = sums.ids[:same - len(near)]
            places += [head.index(i) for i in here if i in head]
        return min(places, default=same)

    def _rows(self, chunk: list[int], target: Target, estimator: Estimator
              ) -> Sequence[int]:
        """The chunk's rows in the kept costs, costing those not costed or changed since
        (a range: all new, in the chunk's order)."""
        costs, stale, off = self._costs, self._stale, self._stale_off
        rows = [costs.row(i) for i in chunk] if costs.indexed else [-1] * len(chunk)
        self.looked_up += len(chunk)
        need = [i for i, r in zip(chunk, rows, strict=True) if r < 0 or i in stale or i in off]
        if not need:
            return rows
        before = len(costs)
        self._cost(need, target, estimator)
        stale.difference_update(need)
        off.difference_update(need)
        if len(need) == len(chunk) and costs.ids[before:] == array("q", chunk):
            return range(before, len(costs))  # all costed now, in order
        fresh = {costs.ids[r]: r for r in range(before, len(costs))}
        rows = [fresh.get(i, r) for i, r in zip(chunk, rows, strict=True)]
        if min(rows) < 0:
            raise KeyError(next(i for i, r in zip(chunk, rows, strict=True) if r < 0))
        return rows

    def _changed_since(self, top: int) -> set[int]:
        return {int(r[0]) for r in self.store.reader.execute(
            "SELECT DISTINCT message_id FROM parts WHERE id > ?", (top,))}

    def _signatures(self, ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        rows = self.store.reader.execute(
            "SELECT message_id, count(*), max(id) FROM parts WHERE message_id IN "
            "(SELECT value FROM json_each(?)) GROUP BY message_id", (json.dumps(list(ids)),))
        return {int(m): (int(n), int(top)) for m, n, top in rows}

    def _cost(self, ids: list[int], target: Target, estimator: Estimator) -> None:
        """Cost ``ids`` from their parts' stored sizes; a message not sized yet (or a
        redactor the sizes do not foresee) from its text."""
        if not sizes_serve(target):
            self._cost_texts(ids, target, estimator)
            return
        added, unsized = cost_columns(self.store.reader, ids, target, estimator, self._costs)
        if unsized:  # an older file not sized this far yet: sized now, through the writer
            self.store.size_parts(unsized)
            more, unsized = cost_columns(self.store.reader, unsized, target, estimator,
                                      self._costs)
            added += more
        self.costed += added
        if unsized:
            self._cost_texts(unsized, target, estimator)

    def _cost_texts(self, ids: list[int], target: Target, estimator: Estimator) -> None:
        signatures = self._signatures(ids)
        loaded = load_messages(self.store.reader, ids)
        self.read_texts += len(loaded)
        messages = [loaded[i] for i in ids if i in loaded]
        overhead = estimator.rules.message_overhead
        for m in redacted(messages, target, []):  # costed as sent: after the redactor
            parts = _part_costs(m, estimator)  # each part estimated once, for both uses
            image = sum(raw for _, raw, is_image in parts if is_image)
            text = overhead + sum(raw for _, raw, is_image in parts if not is_image)
            measured = (measured_prompt(m.usage, estimator.family)
                        if m.role == "assistant" else None)
            mid = db_id(m.id)
            meta = m.source_meta if measured else {}
            self._costs.add(mid, signatures.get(mid, (0, 0)), text, image, measured,
                            _BUCKET[_role_bucket(m)], parts,
                            meta.get(REQUEST_KEY), meta.get(IMAGE_PRICE_KEY))
        self.costed += len(messages)


def _not_sent(store: Store, conv_id: int, low: int, high: int) -> set[int]:
    """The records a tool kept for itself among the conversation's messages ``low`` to
    ``high`` (``meta_records.sent_to_models``), read through the index of marked ones."""
    marks = ",".join("?" * len(NOT_SENT))
    return {int(r[0]) for r in store.reader.execute(
        f"SELECT id FROM {MARKED_ROWS} WHERE conversation_id = ? AND {MARKED} "
        f"AND id BETWEEN ? AND ? AND source_meta ->> '$.meta_record' IN ({marks})",
        (conv_id, low, high, *sorted(NOT_SENT)))}


def _role_bucket(m: Message) -> str:
    return "system" if m.role == "system" else ("assistant" if m.role == "assistant" else "user")


def _part_costs(m: Message, estimator: Estimator) -> tuple[tuple[int, int, bool], ...]:
    return tuple((_BUCKET[part_bucket(m, p)], estimator.raw_part(p), p.kind == "image")
                 for p in m.parts)


def _in_conversation(store: Store, conv_id: int, ids: set[int]) -> list[int]:
    """Those of ``ids`` that belong to ``conv_id`` (the rest changed elsewhere)."""
    return [int(r[0]) for r in store.reader.execute(
        "SELECT id FROM messages WHERE id IN (SELECT value FROM json_each(?)) "
        "AND conversation_id = ?", (json.dumps(sorted(ids)), conv_id))]


def _copy(usage: ContextUsage) -> ContextUsage:
    """A caller's own copy: the kept figure is handed out again."""
    return dataclasses.replace(usage, parts=dict(usage.parts))
