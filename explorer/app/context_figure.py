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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

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
"""Costed messages kept (about 100 B each); beyond it the cache starts again."""

_BUCKET = {name: i for i, name in enumerate(PART_NAMES)}


@dataclass(frozen=True, slots=True)
class _Costed:
    """One message's raw costs: what the estimator learns from and what the bar shows."""

    signature: tuple[int, int]  # its parts' count and highest row id: changes if they do
    text: int  # raw text tokens with the message overhead (what the estimator learns from)
    image: int
    measured: int | None  # the prompt count its usage holds (assistant messages)
    role_bucket: int
    parts: tuple[tuple[int, int, bool], ...]  # (bucket, raw tokens, is image), redacted
    request: object = None  # the request record a measured answer keeps (REQUEST_KEY)
    image_price: object = None  # the per-image price its usage showed (IMAGE_PRICE_KEY)


class ContextFigure:
    """Costs the active context of conversations for one target family at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._costs: dict[int, _Costed] = {}
        self._costing: tuple[object, ...] | None = None
        self._lock = threading.Lock()
        self.costed = 0  # messages read and estimated since this figure was made

    def context_ids(self, conv_id: int) -> list[int]:
        """The active context's ids, as ``compacting.active_context`` cuts it."""
        conv = self.store.conversation(conv_id)
        end = conv.clean_tip_id if conv.clean_tip_id is not None else conv.tip_id
        if end is None:
            return []
        ids = self.store.path_ids(end)
        start = conv.context_start_id
        return ids[ids.index(start):] if start in ids else ids

    def usage(self, conv_id: int, target: Target,
              check: Callable[[], None] = lambda: None) -> ContextUsage:
        """What fills ``target``'s window on the conversation's active context."""
        with self._lock:
            ids = self.context_ids(conv_id)
            estimator = target.estimator()
            costs = self._costs_for(ids, target, estimator, check)
            return _usage(ids, costs, estimator, target)

    def _costs_for(self, ids: Sequence[int], target: Target, estimator: Estimator,
                   check: Callable[[], None]) -> list[_Costed]:
        costing = (estimator.family, repr(target.images), target.redactor is not None)
        if costing != self._costing or len(self._costs) > REMEMBERED:
            self._costs, self._costing = {}, costing
        for start in range(0, len(ids), CHUNK):
            check()
            chunk = ids[start:start + CHUNK]
            signatures = self._signatures(chunk)
            stale = [i for i in chunk if (c := self._costs.get(i)) is None
                     or c.signature != signatures.get(i, (0, 0))]
            if stale:
                self._cost(stale, signatures, target, estimator)
        return [self._costs[i] for i in ids]

    def _signatures(self, ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        rows = self.store.reader.execute(
            "SELECT message_id, count(*), max(id) FROM parts WHERE message_id IN "
            "(SELECT value FROM json_each(?)) GROUP BY message_id", (json.dumps(list(ids)),))
        return {int(m): (int(n), int(top)) for m, n, top in rows}

    def _cost(self, ids: list[int], signatures: dict[int, tuple[int, int]], target: Target,
              estimator: Estimator) -> None:
        loaded = load_messages(self.store.reader, ids)
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
            self._costs[mid] = _Costed(signatures.get(mid, (0, 0)), text, image, measured,
                                       _BUCKET[_role_bucket(m)], parts,
                                       meta.get(REQUEST_KEY), meta.get(IMAGE_PRICE_KEY))
        self.costed += len(messages)


def _learn(estimator: Estimator, costs: Sequence[_Costed]) -> None:
    """What ``Estimator.learn_from_path`` learns, from kept costs: image prices first, then
    each answer compared with the request it records it was sent (after a compaction)."""
    for c in costs:
        estimator.learn_image_price_record(c.image_price)
    sent = {k: s for k, c in enumerate(costs)
            if c.measured and (s := estimator.sent_from_record(c.request)) is not None}
    estimator.learn_from_counts(((c.text, c.image, c.measured) for c in costs), sent)


def _role_bucket(m: Message) -> str:
    return "system" if m.role == "system" else ("assistant" if m.role == "assistant" else "user")


def _part_costs(m: Message, estimator: Estimator) -> tuple[tuple[int, int, bool], ...]:
    return tuple((_BUCKET[part_bucket(m, p)], estimator.raw_part(p), p.kind == "image")
                 for p in m.parts)


def _usage(ids: Sequence[int], costs: Sequence[_Costed], estimator: Estimator,
           target: Target) -> ContextUsage:
    """``context_usage`` from kept costs: the same sums, part by part."""
    _learn(estimator, costs)
    totals = [0] * len(PART_NAMES)
    overhead = estimator.correct(estimator.rules.message_overhead)
    correct = estimator.correct
    for c in costs:
        totals[c.role_bucket] += overhead
        for bucket, raw, image in c.parts:
            totals[bucket] += raw if image else correct(raw)
    parts = dict(zip(PART_NAMES, totals, strict=True))
    parts["overhead"] = estimator.overhead
    measured, at = _measured(ids, costs, estimator)
    return ContextUsage(
        family=estimator.family, window=target.window, output_reserve=target.output_reserve,
        parts=parts, estimated_total=sum(parts.values()), measured_total=measured,
        measured_at=at, factor=estimator.factor)


def _measured(ids: Sequence[int], costs: Sequence[_Costed],
              estimator: Estimator) -> tuple[int | None, int | None]:
    """The last measured prompt plus the estimate of what came after (as ``context_usage``)."""
    for i in range(len(costs) - 1, -1, -1):
        found = costs[i].measured
        if found:
            tail = costs[i:]
            text = sum(c.text for c in tail)
            image = sum(c.image for c in tail)
            return found + estimator.correct(text) + image, ids[i]
    return None, None
