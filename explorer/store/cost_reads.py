"""What a conversation's cost is worked out from: per message its place, model, usage and the
stored sizes of its parts, without reading any text (C5).

Measured usage is summed as it is; an answer without it is estimated from the sizes each part
keeps (``explorer.tree.part_sizes``), so a 100,000-message session is costed from integers. A
part written before sizes existed counts its text's length as word characters.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from explorer.store.fetching import in_chunks
from explorer.tree.model import Usage

_QUERY = """
SELECT m.id, m.parent_id, m.role, m.model, m.usage,
  COALESCE(SUM(CASE WHEN p.kind != 'image' THEN COALESCE(p.size_words, length(p.text)) END), 0),
  COALESCE(SUM(CASE WHEN p.kind != 'image' THEN COALESCE(p.size_punct, 0) END), 0),
  COALESCE(SUM(CASE WHEN p.kind != 'image' THEN COALESCE(p.size_wide, 0) END), 0),
  COALESCE(SUM(p.kind IN ('text', 'thinking')), 0),
  COALESCE(SUM(p.kind = 'tool_use'), 0),
  COALESCE(SUM(p.kind = 'tool_result'), 0),
  group_concat(CASE WHEN p.kind = 'image'
               THEN COALESCE(p.image_width, 0) || 'x' || COALESCE(p.image_height, 0) END, ' ')
FROM messages m LEFT JOIN parts p ON p.message_id = m.id
WHERE m.conversation_id = ?
GROUP BY m.id ORDER BY m.id
"""


@dataclass(frozen=True, slots=True)
class CostRow:
    """One message as costing sees it: who wrote it, what was measured, how big it is."""

    id: int
    parent_id: int | None
    role: str
    model: str | None
    usage: Usage | None
    units: tuple[int, int, int]  # word, punctuation and non-ASCII characters of its text
    text_parts: int
    tool_uses: int
    tool_results: int
    images: tuple[tuple[int, int], ...]  # width, height (0: unknown)


def cost_rows(conn: sqlite3.Connection, conv_id: int) -> list[CostRow]:
    """Every message of the conversation (subagent transcripts included), in id order."""
    out: list[CostRow] = []
    for chunk in in_chunks(conn.execute(_QUERY, (conv_id,))):
        for (mid, parent, role, model, usage, words, punct, wide, texts, uses, results,
             images) in chunk:
            out.append(CostRow(mid, parent, role, model, _usage(usage), (words, punct, wide),
                               texts, uses, results, _images(images)))
    return out


def _usage(raw: str | None) -> Usage | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return Usage.from_dict(value) if isinstance(value, dict) else None


def _images(raw: str | None) -> tuple[tuple[int, int], ...]:
    if not raw:
        return ()
    sizes: list[tuple[int, int]] = []
    for item in raw.split():
        w, _, h = item.partition("x")
        sizes.append((int(w or 0), int(h or 0)))
    return tuple(sizes)
