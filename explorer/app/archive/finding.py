"""``search``: full text over every conversation, ranked, paged, each hit with a snippet.

The store's full-text index ranks the parts (bm25, as ``convo search``); a message with
several matching parts is one hit, at its best part. The snippet is cut from that part
after the whole message was redacted, so a key is never half shown.
"""

from __future__ import annotations

import re
from typing import Any

from explorer.app.archive.arguments import Param
from explorer.app.archive.bounds import Budget
from explorer.app.archive.listing import when
from explorer.app.archive.session import Archive
from explorer.store.rows import load_messages
from explorer.tree.model import Part

SNIPPET_CHARS = 240
PARAMS = [
    Param("query", "string", "words to find (every word must occur; no query syntax)",
          required=True, max_length=500),
    Param("conversation", "integer", "only in this conversation", minimum=1),
]


def quoted(query: str) -> str:
    """The query as FTS5 phrases, so what a person or agent types is never query syntax
    (control characters, which SQLite reads as the string's end, become spaces)."""
    plain = "".join(" " if ord(ch) < 32 else ch for ch in query)
    return " ".join('"' + t.replace('"', '""') + '"' for t in plain.split())


def _hits(archive: Archive, terms: str, conv: int | None, limit: int,
          offset: int) -> list[tuple[int, int, int]]:
    """(conversation, message, part index) of each ranked hit, one per message."""
    where = " AND m.conversation_id = ?" if conv is not None else ""
    sql = ("SELECT m.conversation_id, p.message_id, p.idx, min(parts_fts.rank) AS r "
           "FROM parts_fts JOIN parts p ON p.id = parts_fts.rowid "
           "JOIN messages m ON m.id = p.message_id "
           f"WHERE parts_fts MATCH ?{where} GROUP BY p.message_id "
           "ORDER BY r, p.message_id LIMIT ? OFFSET ?")
    params: tuple[Any, ...] = (terms, *((conv,) if conv is not None else ()), limit, offset)
    return [(int(c), int(m), int(i)) for c, m, i, _ in archive.store.reader.execute(sql, params)]


def part_words(p: Part) -> str:
    if p.kind == "tool_use":
        return f"{p.tool_name or 'tool'}({p.text})"
    if p.kind == "image":
        return f"[image {p.media_type or ''}]"
    return p.text


def snippet(text: str, words: list[str], chars: int = SNIPPET_CHARS) -> str:
    """A window of ``text`` on one line around the first of ``words`` it holds."""
    found = [m.start() for w in words if (m := re.search(re.escape(w), text, re.IGNORECASE))]
    at = min(found) if found else 0
    start = max(0, at - chars // 3)
    piece = " ".join(text[start:start + chars].split())
    return ("…" if start > 0 else "") + piece + ("…" if start + chars < len(text) else "")


def search(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    store = archive.store
    terms = quoted(args["query"])
    if not terms:
        return Budget(args["max_chars"]).finish({"query": args["query"], "results": [],
                                                 "offset": 0, "next_offset": None})
    conv_filter = args["conversation"]
    if conv_filter is not None:
        store.conversation(conv_filter, boundary=False)  # an unknown id is refused
    offset, limit = args["offset"], args["limit"]
    hits = _hits(archive, terms, conv_filter, limit + 1, offset)
    more = len(hits) > limit
    hits = hits[:limit]
    found = load_messages(store.reader, [m for _, m, _ in hits])
    titles: dict[int, str] = {}
    words = args["query"].split()
    budget = Budget(args["max_chars"])

    def rows() -> Any:
        for rank, (conv, mid, idx) in enumerate(hits, start=offset + 1):
            if conv not in titles:
                titles[conv] = store.conversation(conv, boundary=False).display_title
            m = archive.message(found[mid])
            part = m.parts[idx] if idx < len(m.parts) else None
            yield {"rank": rank, "conversation": conv, "title": titles[conv], "message": mid,
                   "role": m.role, "part": part.kind if part else None,
                   "when": when(m.created_at),
                   "snippet": snippet(part_words(part), words) if part else ""}

    results = budget.take(rows(), "not every hit of this page fitted in max_chars")
    shown = offset + len(results)
    return budget.finish({"query": args["query"], "offset": offset, "results": results,
                          "next_offset": shown if more or len(results) < len(hits) else None})
