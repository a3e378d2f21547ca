"""The loss report after the fact (L8): what a compaction already made kept of what it replaced.

A compaction recorded on the path with summary text (one ``convo compact`` applied with the
summary rung, or one an agent made and its importer kept: Claude Code's compact boundary,
Codex's ``compacted``, pi's) stands for a stretch of messages. Each exact string of that
stretch is either in the summary the model reads now, or nowhere. The stretch is the middle our
record names, or for an imported one every message since the previous compaction (or the root)
up to the compaction's own message.
"""

from __future__ import annotations

from typing import Any

from explorer.compaction.loss_report import LossReport, summary_report
from explorer.store import Store
from explorer.tree.model import Message


def _replaced(path: list[Message], index: dict[Any, int], record: dict[str, Any],
              since: int) -> list[Message]:
    split = (record.get("outputs") or {}).get("split") or {}
    first, last = split.get("middle_first_id"), split.get("middle_last_id")
    if first in index and last in index:
        return path[index[first]: index[last] + 1]
    return path[since: index[record["message_id"]]]


def applied_reports(store: Store, conv_id: int) -> list[LossReport]:
    """One report per compaction on the active path that left a summary, oldest first."""
    path = store.path(conv_id)
    index = {m.id: i for i, m in enumerate(path)}
    out: list[LossReport] = []
    since = 0
    for record in store.compactions(conv_id):
        at = index.get(record["message_id"])
        if at is None:
            continue  # on another branch
        summary = record.get("summary") or ""
        if summary.strip():
            replaced = [m for m in _replaced(path, index, record, since) if m.text != summary]
            report = summary_report(replaced, summary, f"{record['kind']} (applied)")
            report.about = {"compaction": record["id"], "message": record["message_id"],
                            "origin": record.get("origin"), "replaced_messages": len(replaced),
                            "summary_chars": len(summary)}
            out.append(report)
        since = at + 1
    return out
