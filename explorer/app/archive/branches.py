"""``list_branches`` and ``compare``: where a conversation splits, and what two branches say
differently.

Both read what the window reads (the tended tree, ``explorer.app.comparing``), so an agent
and a person see the same siblings and the same differences. Compare runs on messages
redacted before they are diffed: a mark can never fall inside a secret and hide it from
the rules that find it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer.app.archive.arguments import Param
from explorer.app.archive.bounds import Budget, cut_text, size
from explorer.app.archive.session import Archive
from explorer.app.comparing.columns import compare as compare_branches
from explorer.app.comparing.text import part_line, summary
from explorer.app.views.tree_view import tended_view
from explorer.store import Store
from explorer.store.rows import load_messages
from explorer.tree.model import Message
from explorer.tree.tending import hidden_by_archive
from explorer.tree.turn_labels import first_words

BRANCH_PARAMS = [Param("conversation", "integer", "the conversation's id", required=True,
                       minimum=1)]
COMPARE_PARAMS = [
    Param("message_a", "integer", "a message on the first branch", required=True, minimum=1),
    Param("message_b", "integer", "a message on the second branch", required=True, minimum=1),
    Param("mode", "string", "what a difference is: a word or a whole line", default="words",
          choices=("words", "lines")),
    Param("changes_only", "boolean", "leave out turns and text that are the same",
          default=True),
]
WORDS = 80


def words_of(m: Message) -> str:
    """A message's first words: its text, else what its tool calls or results say."""
    text = m.text or " ".join(
        f"{p.tool_name or 'tool'}({p.text})" if p.kind == "tool_use" else p.text
        for p in m.parts if p.text)
    return first_words(text[:2000], WORDS)


def list_branches(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    store = archive.store
    conv_id = args["conversation"]
    conv = store.conversation(conv_id, boundary=False)
    view = tended_view(store, conv_id, show_all=True)
    children = view.children
    archived = hidden_by_archive(children, list(view.marks.archived))
    active = set(store.path_ids(conv.tip_id)) if conv.tip_id is not None else set()
    points = sorted((p for p, kids in children.items() if len(kids) > 1),
                    key=lambda p: -1 if p is None else p)
    start, limit = args["offset"], args["limit"]
    page = points[start:start + limit]
    tips = {sib: view.preferred_tip(sib, active) or sib
            for p in page for sib in children[p]}
    records = set(store.ids_with_role(conv_id, "system"))
    said = {sib: _first_said(sib, children, records, active) for sib in tips}
    found = load_messages(store.reader, sorted({*tips, *tips.values(), *said.values(),
                                                *(p for p in page if p is not None)}))
    shown = {mid: archive.message(m) for mid, m in found.items()}
    budget = Budget(args["max_chars"])

    def rows() -> Any:
        for p in page:
            yield {"at": p, "at_words": words_of(shown[p]) if p is not None else None,
                   "siblings": [_sibling(sib, tips[sib], said[sib], shown, active, archived,
                                         view.marks) for sib in children[p]]}

    kept = budget.take(rows(), "not every branch point of this page fitted in max_chars")
    last = start + len(kept)
    return budget.finish({
        "conversation": conv_id, "title": conv.display_title, "tip": conv.tip_id,
        "branch_points": len(points), "offset": start, "points": kept,
        "next_offset": last if last < len(points) else None})


def _first_said(sib: int, children: dict[int | None, list[int]], records: set[int],
                active: set[int], most: int = 50) -> int:
    """The first message at or below ``sib`` that is not an agent's own record (a Claude
    Code session's snapshots and hook notes branch too): what the branch says first."""
    node = sib
    for _ in range(most):
        if node not in records:
            return node
        kids = children.get(node, [])
        if not kids:
            break
        node = next((k for k in kids if k in active), kids[-1])
    return sib


def _sibling(sib: int, tip: int, said: int, shown: dict[int, Message], active: set[int],
             archived: set[int], marks: Any) -> dict[str, Any]:
    return {"message": sib, "role": shown[sib].role, "words": words_of(shown[said]),
            "first_said": said if said != sib else None,
            "tip": tip, "tip_words": words_of(shown[tip]) if tip != sib else None,
            "active": sib in active, "archived": sib in archived,
            "name": marks.labels.get(sib), "note": marks.notes.get(sib)}


class _RedactedReads(Store):
    """The store as compare reads it, every message redacted as it is loaded."""

    def __init__(self, archive: Archive) -> None:  # no super(): the store is open already
        self._archive = archive

    def __getattr__(self, name: str) -> Any:
        return getattr(self._archive.store, name)

    def path(self, conv_id: int, tip: int | None = None) -> list[Message]:
        return self._archive.messages(self._archive.store.path(conv_id, tip))

    def message(self, mid: int) -> Message:
        return self._archive.message(self._archive.store.message(mid))


def compare(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    reads = _RedactedReads(archive) if archive.redact else archive.store
    c = compare_branches(reads, [args["message_a"], args["message_b"]], mode=args["mode"],
                         changes_only=args["changes_only"])
    budget = Budget(args["max_chars"])
    columns = [{"letter": c.letter(j), "chosen": col.chosen_id, "leaf": col.leaf_id,
                "label": col.label, "description": col.description, "turns": col.turns,
                "same_as_base": col.same_as_base, "changes": col.changes}
               for j, col in enumerate(c.columns)]
    budget.fits(columns)
    rows: list[dict[str, Any]] = []
    for row in _rows(c, args["changes_only"]):
        if not budget.fits(row):
            if not rows:  # the first differing turn is shown cut rather than left out
                room = max(200, (budget.left - size(row["cells"].keys()) - 200)
                           // max(1, len(row["cells"])))
                row["cells"] = {k: cut_text(v, room) for k, v in row["cells"].items()}
                budget.fits(row)
                rows.append(row)
            budget.say("later turns did not fit in max_chars (raise it, or compare "
                       "messages further down the branches)")
            break
        rows.append(row)
    return budget.finish({
        "conversation": c.conversation_id, "ancestor": c.ancestor_id,
        "base": c.letter(c.base), "identical": c.identical, "summary": summary(c),
        "marks": "{+words+} are the column's own, [-words-] are the base's that it lacks",
        "columns": columns, "turns": rows})


def _rows(c: Any, changes_only: bool) -> Any:
    for k, row in enumerate(c.rows):
        if changes_only and c.same_rows[k]:
            continue
        yield {"turn": k + 1, "same": c.same_rows[k],
               "cells": {c.letter(j): _cell_text(cell.messages) for j, cell in enumerate(row)}}


def _cell_text(messages: Sequence[Any]) -> str:
    if not messages:
        return "(no turn here on this branch)"
    lines: list[str] = []
    for m in messages:
        lines.append(m.heading)
        lines += [cut_text(line, 4000) for line in map(part_line, m.parts) if line.strip()]
    return "\n".join(lines)
