"""The context figure's per-message costs from the sizes the store keeps, without any text.

``planner.usage`` costs a message by estimating each part of it after the redactor; every
input that estimate reads of a part (its character counts before and after the redactor,
an image's width and height) is kept beside the part when it is written
(``tree.part_sizes``), so costing a 60,000-message context is a read of integers: SQLite
turns each part's counts into the family's uncorrected tokens (the same IEEE arithmetic as
``Estimator.units_tokens``, rounded up the same way); ``context_figure_columns`` adds the
per-part overheads and image prices. A message with a part not sized yet (a file an older version
wrote, still being sized in the background) is left to the caller, which costs it from
its text.
"""

from __future__ import annotations

import json
import sqlite3

from explorer.app.context.costs import CostTable
from explorer.compaction.context import PART_NAMES
from explorer.compaction.estimate import (
    IMAGE_PRICE_KEY,
    REQUEST_KEY,
)
from explorer.compaction.target import Target
from explorer.tree.secrets import SecretRedactor

_BUCKET = {name: i for i, name in enumerate(PART_NAMES)}


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


def _records(conn: sqlite3.Connection, table: CostTable, rows: dict[int, int]) -> None:
    """The request and image price a measured answer records (``planner.usage`` learns
    from them), read for those answers only."""
    for mid, request, price in conn.execute(
        f"SELECT id, source_meta -> '$.{REQUEST_KEY}', source_meta -> '$.{IMAGE_PRICE_KEY}' "
        "FROM messages WHERE id IN (SELECT value FROM json_each(?)) "
        f"AND (source_meta -> '$.{REQUEST_KEY}' IS NOT NULL "
        f"OR source_meta -> '$.{IMAGE_PRICE_KEY}' IS NOT NULL)", (json.dumps(list(rows)),),
    ):
        table.records[rows[mid]] = (json.loads(request) if request else None,
                                    json.loads(price) if price else None)
