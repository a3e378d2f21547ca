"""The context figure's costs read a message at a time, in Python: the reference the
column read (``app.context_figure_columns``) is checked against, as the figure once read
them. Kept with the tests only: the window costs through the columns."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from explorer.app.context.costs import CostTable
from explorer.app.context.sizes import _BUCKET, _records, tokens_sql
from explorer.compaction.estimate import (
    UNKNOWN_IMAGE_SIDE,
    Estimator,
    FamilyRules,
    measured_prompt,
)
from explorer.compaction.target import Target
from explorer.tree.model import Usage

_USER = _BUCKET["user"]
_ROLE = {"system": _BUCKET["system"], "assistant": _BUCKET["assistant"]}  # others: user's
_TOOLS, _RESULTS = _BUCKET["tools"], _BUCKET["tool_results"]
_IMAGES, _SNAPSHOTS = _BUCKET["images"], _BUCKET["snapshots"]


def _query(redacted: bool) -> str:
    return (
        "SELECT m.id, m.role, "
        "CASE WHEN m.role = 'assistant' AND m.usage IS NOT NULL THEN ifnull(m.usage ->> "
        "'$.input_tokens', -1) END, m.usage ->> '$.cache_read_tokens', "
        "m.usage ->> '$.cache_write_tokens', "
        f"p.id, p.kind, p.tool_name, p.size_chars IS NULL, {tokens_sql(redacted)}, "
        "p.image_width, p.image_height, "
        "CASE WHEN p.kind = 'image' THEN p.meta ->> '$.compaction' = 'snapshot' END "
        "FROM json_each(:ids) j JOIN messages m ON m.id = j.value "
        "LEFT JOIN parts p ON p.message_id = m.id ORDER BY j.key, p.idx")


def cost_into(conn: sqlite3.Connection, ids: Sequence[int], target: Target,
              estimator: Estimator, table: CostTable) -> tuple[int, list[int]]:
    """Add to ``table`` the costs of the messages of ``ids`` whose parts are all sized (as
    ``ContextFigure`` costs a loaded message); returns how many, and the ids of the others
    (to be costed from their text)."""
    r = estimator.rules
    params = {"ids": json.dumps(list(ids)), "rw": r.word_chars_per_token,
              "rp": r.punct_chars_per_token, "ra": r.non_ascii_chars_per_token}
    names: dict[str, int] = {}
    unsized: list[int] = []
    measured: dict[int, int] = {}
    added = 0
    cur: tuple[int, int, int | None] | None = None  # (id, role bucket, measured)
    parts: list[tuple[int, int, bool]] = []
    count = top = 0
    whole = True
    for (mid, role, usage_in, read, write, pid, kind, tool_name, no_size, tokens, width,
         height, page) in conn.execute(_query(target.redactor is not None), params):
        if cur is None or mid != cur[0]:
            if cur is not None:
                added += _flush(table, cur, parts, count, top, whole, unsized, measured, r)
            prompt = None if usage_in is None else _measured(usage_in, read, write, estimator)
            cur, parts, count, top, whole = (mid, _ROLE.get(role, _USER), prompt), [], 0, 0, True
        if pid is None:  # a message without parts
            continue
        count += 1
        top = pid if pid > top else top
        if no_size:
            whole = False
        elif kind == "image":
            side = (width, height) if width is not None and height is not None else (
                UNKNOWN_IMAGE_SIDE, UNKNOWN_IMAGE_SIDE)  # unreadable, as ``image_part_tokens``
            parts.append((_SNAPSHOTS if page else _IMAGES,
                          r.part_overhead + estimator.image_price(*side), True))
        elif kind == "tool_use":
            named = names.get(tool_name or "")
            if named is None:
                named = names[tool_name or ""] = estimator.text_tokens(tool_name or "")
            parts.append((_TOOLS, tokens + r.tool_use_overhead + named, False))
        elif kind == "tool_result":
            parts.append((_RESULTS, tokens + r.tool_result_overhead, False))
        else:
            parts.append((cur[1], tokens + r.part_overhead, False))
    if cur is not None:
        added += _flush(table, cur, parts, count, top, whole, unsized, measured, r)
    if measured:
        _records(conn, table, measured)
    return added, unsized


def _measured(usage_in: object, read: object, write: object, estimator: Estimator
              ) -> int | None:
    """``measured_prompt`` of an answer's stored usage (-1: no input count)."""
    if usage_in == -1:
        return None
    return measured_prompt(Usage(input_tokens=int(str(usage_in)),
                                 cache_read_tokens=None if read is None else int(str(read)),
                                 cache_write_tokens=None if write is None else int(str(write))),
                           estimator.family)


def _flush(table: CostTable, cur: tuple[int, int, int | None],
           parts: list[tuple[int, int, bool]], count: int, top: int, whole: bool,
           unsized: list[int], measured: dict[int, int], rules: FamilyRules) -> int:
    mid, role, prompt = cur
    if not whole:
        unsized.append(mid)
        return 0
    text, image = rules.message_overhead, 0
    for _, raw, is_image in parts:
        if is_image:
            image += raw
        else:
            text += raw
    if prompt:
        measured[mid] = len(table)
    table.add(mid, (count, top), text, image, prompt, role, parts)
    return 1
