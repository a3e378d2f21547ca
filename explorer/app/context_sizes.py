"""The context figure's per-message costs from the sizes the store keeps, without any text.

``planner.usage`` costs a message by estimating each part of it after the redactor; every
input that estimate reads of a part (its character counts before and after the redactor,
an image's width and height) is kept beside the part when it is written
(``tree.part_sizes``), so costing a 60,000-message context is a read of integers: SQLite
turns each part's counts into the family's uncorrected tokens (the same IEEE arithmetic as
``Estimator.units_tokens``, rounded up the same way), and only the per-part overheads and
image prices are added here. A message with a part not sized yet (a file an older version
wrote, still being sized in the background) is left to the caller, which costs it from
its text.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import NamedTuple

from explorer.compaction.context import PART_NAMES
from explorer.compaction.estimate import (
    _UNKNOWN_SIDE,
    IMAGE_PRICE_KEY,
    REQUEST_KEY,
    Estimator,
    measured_prompt,
)
from explorer.compaction.target import Target
from explorer.tree.model import Usage
from explorer.tree.secrets import SecretRedactor

_BUCKET = {name: i for i, name in enumerate(PART_NAMES)}


class SizedCost(NamedTuple):
    """What the figure keeps of one message: ``CostTable.add``'s arguments."""

    mid: int
    signature: tuple[int, int]  # its parts' count and highest row id
    text: int  # raw text tokens with the message overhead
    image: int
    measured: int | None
    role: int
    parts: tuple[tuple[int, int, bool], ...]
    request: object
    image_price: object


def sizes_serve(target: Target) -> bool:
    """Whether the stored sizes cost as ``target`` would: no redactor, or the secret one
    (another redactor could change text in ways no stored count foresaw)."""
    return target.redactor is None or isinstance(target.redactor, SecretRedactor)


def tokens_sql(redacted: bool) -> str:
    """A part's uncorrected text tokens, from its stored counts, in SQL: ``ceil(words / w +
    punct / p + wide / a)`` evaluated in the order ``Estimator.units_tokens`` does."""
    w, p, a = (("coalesce(p.sent_words, p.size_words)", "coalesce(p.sent_punct, p.size_punct)",
                "coalesce(p.sent_wide, p.size_wide)") if redacted
               else ("p.size_words", "p.size_punct", "p.size_wide"))
    x = f"({w} / :rw + {p} / :rp + {a} / :ra)"
    return f"(CAST({x} AS INTEGER) + ({x} > CAST({x} AS INTEGER)))"


def sized_costs(conn: sqlite3.Connection, ids: Sequence[int], target: Target,
                estimator: Estimator) -> tuple[list[SizedCost], list[int]]:
    """The costs of the messages of ``ids`` whose parts are all sized, and the ids of the
    others (to be costed from their text)."""
    key = json.dumps(list(ids))
    r = estimator.rules
    parts: dict[int, list[tuple[int, int, bool]]] = {}
    tops: dict[int, int] = {}
    unsized: set[int] = set()
    names: dict[str, int] = {}
    for mid, pid, kind, tool_name, tokens, width, height, page in conn.execute(
        "SELECT p.message_id, p.id, p.kind, p.tool_name, "
        f"{tokens_sql(target.redactor is not None)}, "
        "p.image_width, p.image_height, "
        "CASE WHEN p.kind = 'image' THEN p.meta ->> '$.compaction' = 'snapshot' END "
        "FROM parts p WHERE p.message_id IN (SELECT value FROM json_each(:ids)) "
        "ORDER BY p.message_id, p.idx",
        {"ids": key, "rw": r.word_chars_per_token, "rp": r.punct_chars_per_token,
         "ra": r.non_ascii_chars_per_token},
    ):
        tops[mid] = max(tops.get(mid, 0), pid)
        if tokens is None:
            unsized.add(mid)
            continue
        if kind == "image":
            side = (width, height) if width is not None and height is not None else (
                _UNKNOWN_SIDE, _UNKNOWN_SIDE)  # unreadable, as ``image_part_tokens``
            bucket = _BUCKET["snapshots" if page else "images"]
            parts.setdefault(mid, []).append(
                (bucket, r.part_overhead + estimator.image_price(*side), True))
        elif kind == "tool_use":
            name = tool_name or ""
            named = names.get(name)
            if named is None:
                named = names[name] = estimator.text_tokens(name)
            parts.setdefault(mid, []).append(
                (_BUCKET["tools"], tokens + r.tool_use_overhead + named, False))
        elif kind == "tool_result":
            parts.setdefault(mid, []).append(
                (_BUCKET["tool_results"], tokens + r.tool_result_overhead, False))
        else:  # its message's role bucket: marked -1 until the role is read
            parts.setdefault(mid, []).append((-1, tokens + r.part_overhead, False))
    costs = [_message_cost(row, parts.get(row[0], []), tops.get(row[0], 0), estimator)
             for row in conn.execute(
                 "SELECT id, role, CASE WHEN role = 'assistant' THEN usage END, "
                 f"source_meta -> '$.{REQUEST_KEY}', source_meta -> '$.{IMAGE_PRICE_KEY}' "
                 "FROM messages WHERE id IN (SELECT value FROM json_each(?))", (key,))
             if row[0] not in unsized]
    return costs, sorted(unsized)


def role_bucket(role: str) -> str:
    return "system" if role == "system" else ("assistant" if role == "assistant" else "user")


def _message_cost(row: tuple[int, str, str | None, str | None, str | None],
                  parts: list[tuple[int, int, bool]], top: int, estimator: Estimator
                  ) -> SizedCost:
    """As ``ContextFigure`` costs a loaded message, from its parts' sized costs."""
    mid, role, usage, request, price = row
    bucket = _BUCKET[role_bucket(role)]
    costed = tuple((bucket if b < 0 else b, raw, image) for b, raw, image in parts)
    image = sum(raw for _, raw, is_image in costed if is_image)
    text = estimator.rules.message_overhead + sum(
        raw for _, raw, is_image in costed if not is_image)
    measured = measured_prompt(Usage.from_dict(json.loads(usage)), estimator.family
                               ) if usage else None
    records = (json.loads(request) if request else None,
               json.loads(price) if price else None) if measured else (None, None)
    return SizedCost(mid, (len(parts), top), text, image, measured, bucket, costed, *records)
