"""A big conversation's context figure kept in the file between opens (``store.view_cache``).

Costing the active context of a 100,000-message session reads every message's part
sizes: a second of a core at every open. The figure (a few numbers) is kept under the
conversation's revision and the target it was costed for, so an unchanged conversation
opens with it at once; a changed one, or another target, is costed again.
"""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from typing import Any

from explorer.app.kept.codec import code_key
from explorer.compaction.context import ContextUsage
from explorer.compaction.target import Target
from explorer.store import Store

KIND = "context figure"
KEPT_FROM = 5000
"""Contexts of at least this many messages are kept: a smaller one costs milliseconds."""


def key(target: Target) -> str:
    """What the figure depends on besides the conversation: the code, and the target as its
    equality sees it (the redactor only by whether there is one: the figure is kept only
    for targets whose costing the stored sizes serve)."""
    fields = [_plain(getattr(target, f.name)) for f in dataclasses.fields(target) if f.compare]
    return json.dumps([code_key(), fields, target.redactor is not None])


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def load(store: Store, conv_id: int, at: int, target: Target) -> tuple[ContextUsage, int] | None:
    """The figure and its context's length kept at revision ``at`` for ``target``, or None."""
    data = store.kept_view(conv_id, KIND, at, key(target))
    if data is None:
        return None
    try:
        kept = json.loads(data)
        usage = ContextUsage(
            family=str(kept["family"]), window=_optional_int(kept["window"]),
            output_reserve=int(kept["output_reserve"]),
            parts={str(k): int(v) for k, v in kept["parts"].items()},
            estimated_total=int(kept["estimated_total"]),
            measured_total=_optional_int(kept["measured_total"]),
            measured_at=_optional_int(kept["measured_at"]), factor=float(kept["factor"]))
        return usage, int(kept["length"])
    except (ValueError, TypeError, KeyError, AttributeError):  # a broken entry: a miss
        return None


def keep(store: Store, conv_id: int, at: int, target: Target, usage: ContextUsage,
         length: int) -> None:
    """Keep a figure costed from revision ``at``, when its context is big enough to matter
    and its measured message is an id (as every stored one is)."""
    if length < KEPT_FROM or not isinstance(usage.measured_at, int | None):
        return
    fields = {f.name: getattr(usage, f.name) for f in dataclasses.fields(usage)}
    store.keep_view(conv_id, KIND, at, key(target),
                    json.dumps({**fields, "length": length}).encode())


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)
