"""The context panel's figure, estimated once per message and reused while the path grows.

``planner.usage`` reads every message of the active context and estimates each part
twice (to learn the correction from the stored counts, then to split the figure by
part); on a 100,000-message session that is a minute of work and hundreds of MB each
time the tip moves. Here each message's raw costs (per part, in the target's family,
after the redactor, as ``planner.usage`` costs them) are kept, keyed by the message
id and checked against its parts' row ids, so a refresh reads only messages it has
not costed (new ones at the end of a grown path, or a branch's own), in chunks, and
sums the rest. The result equals
``planner.usage`` on the same context: the same estimator learns from the same counts.
"""

from __future__ import annotations

import json
import threading
from array import array
from collections.abc import Callable, Sequence

from explorer.app.context_costs import CostTable
from explorer.app.context_sizes import cost_into, sizes_serve
from explorer.app.meta_records import NOT_SENT
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
from explorer.store.rows import db_id, load_messages
from explorer.tree.model import Message

CHUNK = 1000
"""Messages read and costed at a time; the caller's ``check`` runs between chunks."""
REMEMBERED = 400_000
"""Costed messages kept (about 70 B each); beyond it the cache starts again."""

_BUCKET = {name: i for i, name in enumerate(PART_NAMES)}


class ContextFigure:
    """Costs the active context of conversations for one target family at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._costs = CostTable()
        self._costing: tuple[object, ...] | None = None
        self._top = 0  # the highest part id when the kept costs were last brought up to date
        self._lock = threading.Lock()
        self.costed = 0  # messages read and estimated since this figure was made
        self.read_texts = 0  # of them, costed from their text (not sized yet)

    def context_ids(self, conv_id: int) -> list[int]:
        """The active context's ids, as ``compacting.active_context`` cuts it (without the
        records a tool kept for itself)."""
        conv = self.store.conversation(conv_id)
        end = conv.clean_tip_id if conv.clean_tip_id is not None else conv.tip_id
        if end is None:
            return []
        ids = self.store.path_ids(end)
        start = conv.context_start_id
        kept = ids[ids.index(start):] if start in ids else ids
        unsent = _not_sent(self.store, kept)
        return [i for i in kept if i not in unsent] if unsent else kept

    def usage(self, conv_id: int, target: Target,
              check: Callable[[], None] = lambda: None) -> ContextUsage:
        """What fills ``target``'s window on the conversation's active context."""
        with self._lock:
            ids = self.context_ids(conv_id)
            estimator = target.estimator()
            rows = self._costs_for(ids, target, estimator, check)
            return _usage(ids, self._costs, rows, estimator, target)

    def _costs_for(self, ids: Sequence[int], target: Target, estimator: Estimator,
                   check: Callable[[], None]) -> array[int]:
        """The rows of ``ids`` in the kept costs, costing the messages not costed yet and
        those given parts since the last refresh (parts are only ever added, so a part
        newer than the last refresh's highest id marks its message changed)."""
        costing = (estimator.family, repr(target.images), target.redactor is not None)
        if costing != self._costing or len(self._costs) > REMEMBERED:
            self._costs, self._costing, self._top = CostTable(), costing, 0
        costs = self._costs
        top = int(self.store.reader.execute("SELECT coalesce(max(id), 0) FROM parts").fetchone()[0])
        known = [costs.row(i) for i in ids] if costs.indexed else None
        changed = self._changed_since(self._top) if known is not None and top > self._top else ()
        costed = False
        try:
            for start in range(0, len(ids), CHUNK):
                check()
                chunk = ids[start:start + CHUNK]
                stale = list(chunk) if known is None else [
                    i for i, r in zip(chunk, known[start:start + CHUNK], strict=True)
                    if r < 0 or i in changed]
                if stale:
                    self._cost(stale, target, estimator)
                    costed = True
        finally:
            costs.merge()  # what a stopped refresh costed is kept too
        self._top = top  # a stopped refresh leaves it: its changes are looked for again
        return costs.rows_for(ids) if costed or known is None else array("i", known)

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
        added, unsized = cost_into(self.store.reader, ids, target, estimator, self._costs)
        if unsized:  # an older file not sized this far yet: sized now, through the writer
            self.store.size_parts(unsized)
            more, unsized = cost_into(self.store.reader, unsized, target, estimator,
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


def _not_sent(store: Store, ids: Sequence[int]) -> set[int]:
    """The records a tool kept for itself among ``ids`` (``meta_records.sent_to_models``)."""
    marks = ",".join("?" * len(NOT_SENT))
    return {int(r[0]) for r in store.reader.execute(
        "SELECT id FROM messages WHERE id IN (SELECT value FROM json_each(?)) "
        "AND source_meta LIKE '%\"meta\\_record\"%' ESCAPE '\\' "  # no JSON parse for most
        f"AND source_meta ->> '$.meta_record' IN ({marks})",
        (json.dumps(list(ids)), *sorted(NOT_SENT)))}


def _learn(estimator: Estimator, costs: CostTable, rows: Sequence[int]) -> None:
    """What ``Estimator.learn_from_path`` learns, from kept costs: image prices first, then
    each answer compared with the request it records it was sent (after a compaction)."""
    records = costs.records
    kept = [(k, records[r]) for k, r in enumerate(rows) if r in records]
    for _k, (_request, price) in kept:
        estimator.learn_image_price_record(price)
    measured = costs.measured
    sent = {k: s for k, (request, _price) in kept
            if measured[rows[k]] and (s := estimator.sent_from_record(request)) is not None}
    text, image = costs.text, costs.image
    estimator.learn_from_counts(((text[r], image[r], measured[r] or None) for r in rows), sent)


def _role_bucket(m: Message) -> str:
    return "system" if m.role == "system" else ("assistant" if m.role == "assistant" else "user")


def _part_costs(m: Message, estimator: Estimator) -> tuple[tuple[int, int, bool], ...]:
    return tuple((_BUCKET[part_bucket(m, p)], estimator.raw_part(p), p.kind == "image")
                 for p in m.parts)


def _usage(ids: Sequence[int], costs: CostTable, rows: Sequence[int], estimator: Estimator,
           target: Target) -> ContextUsage:
    """``context_usage`` from kept costs: the same sums, part by part."""
    _learn(estimator, costs, rows)
    totals = [0] * len(PART_NAMES)
    overhead = estimator.correct(estimator.rules.message_overhead)
    correct = estimator.correct
    role, starts = costs.role, costs.part_starts
    bucket, raw, image = costs.part_bucket, costs.part_raw, costs.part_image
    for r in rows:
        totals[role[r]] += overhead
        for k in range(starts[r], starts[r + 1]):
            totals[bucket[k]] += raw[k] if image[k] else correct(raw[k])
    parts = dict(zip(PART_NAMES, totals, strict=True))
    parts["overhead"] = estimator.overhead
    measured, at = _measured(ids, costs, rows, estimator)
    return ContextUsage(
        family=estimator.family, window=target.window, output_reserve=target.output_reserve,
        parts=parts, estimated_total=sum(parts.values()), measured_total=measured,
        measured_at=at, factor=estimator.factor)


def _measured(ids: Sequence[int], costs: CostTable, rows: Sequence[int],
              estimator: Estimator) -> tuple[int | None, int | None]:
    """The last measured prompt plus the estimate of what came after (as ``context_usage``)."""
    for i in range(len(rows) - 1, -1, -1):
        found = costs.measured[rows[i]]
        if found:
            tail = rows[i:]
            text = sum(costs.text[r] for r in tail)
            image = sum(costs.image[r] for r in tail)
            return found + estimator.correct(text) + image, ids[i]
    return None, None
