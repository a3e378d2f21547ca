"""``search``: full text over every conversation, ranked, paged, each hit with a snippet.

The store's search answers (``store.search_plan``, as ``convo search`` and Ctrl+F): ranked by
bm25 when the words match few enough parts to score in time, else newest sessions first (the
answer's ``order`` says which). A message with several matching parts is one hit. The
snippet is cut from its part after the whole message was redacted, so a key is never half
shown.
"""

from __future__ import annotations

import re
from typing import Any

from explorer.app.archive.arguments import Param
from explorer.app.archive.bounds import Budget
from explorer.app.archive.listing import when
from explorer.app.archive.session import Archive
from explorer.store.rows import load_messages
from explorer.store.search_plan import search_page
from explorer.store.search_query import plain
from explorer.tree.model import Part

SNIPPET_CHARS = 240
PARAMS = [
    Param("query", "string", "words to find (every word must occur; no query syntax)",
          required=True, max_length=500),
    Param("conversation", "integer", "only in this conversation", minimum=1),
]


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
    query = plain(args["query"], args["conversation"])
    if not query.terms:
        return Budget(args["max_chars"]).finish({"query": args["query"], "results": [],
                                                 "offset": 0, "next_offset": None})
    conv_filter = args["conversation"]
    if conv_filter is not None:
        store.conversation(conv_filter, boundary=False)  # an unknown id is refused
    offset, limit = args["offset"], args["limit"]
    page = search_page(store.reader, query, limit, offset)
    more = page.more
    hits = [(h.conversation_id, h.message_id, h.part or 0) for h in page.hits]
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
    return budget.finish({"query": args["query"], "offset": offset,
                          "order": "relevance" if page.ranked else "newest sessions first",
                          "results": results,
                          "next_offset": shown if more or len(results) < len(hits) else None})
