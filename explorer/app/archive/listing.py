"""``list_conversations`` and ``checkpoints``: what is in the archive, and the labelled turn
boundaries of one conversation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from explorer.app.archive.arguments import ArgumentError, Param
from explorer.app.archive.bounds import Budget
from explorer.app.archive.branches import words_of
from explorer.app.archive.session import Archive
from explorer.store.reads import Conversation

LIST_PARAMS = [
    Param("source", "string", "only conversations read from this tool's files (claude_code, "
          "codex, gemini_cli, opencode, pi, chatgpt, llm, demo, ...)", max_length=100),
    Param("project", "string", "only conversations whose working folder contains this text",
          max_length=500),
    Param("title", "string", "only conversations whose title contains this text",
          max_length=500),
    Param("since", "string", "only conversations active on or after this date "
          "(YYYY-MM-DD or an ISO 8601 time)", max_length=40),
    Param("until", "string", "only conversations started on or before this date "
          "(YYYY-MM-DD: that whole day)", max_length=40),
]


def when(stamp: float | None) -> str | None:
    """An epoch time as an agent reads it: ISO 8601 in UTC, to the second."""
    if stamp is None:
        return None
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")


def _moment(name: str, text: str | None, day_end: bool) -> float | None:
    if text is None:
        return None
    try:
        found = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ArgumentError(f"{name!r} must be a date (YYYY-MM-DD) or an ISO 8601 time, "
                            f"not {text!r}") from None
    if found.tzinfo is None:
        found = found.replace(tzinfo=UTC)
    if day_end and len(text.strip()) == 10:  # a bare date: until the end of that day
        found += timedelta(days=1) - timedelta(microseconds=1)
    return found.timestamp()


def _plain(name: str) -> str:
    """A format's name as either spelling finds it (claude-code is claude_code)."""
    return name.casefold().replace("-", "_")


def _matches(c: Conversation, args: dict[str, Any], since: float | None,
             until: float | None) -> bool:
    if args["source"] and _plain(c.source_format or "") != _plain(args["source"]):
        return False
    if args["project"]:
        folders = " ".join(str(x) for x in (c.meta.get("cwd"), c.source_path) if x)
        if args["project"].casefold() not in folders.casefold():
            return False
    if args["title"] and args["title"].casefold() not in c.display_title.casefold():
        return False
    last = c.updated_at if c.updated_at is not None else c.created_at
    first = c.created_at if c.created_at is not None else c.updated_at
    if since is not None and (last is None or last < since):
        return False
    return not (until is not None and (first is None or first > until))


def conversation_row(c: Conversation) -> dict[str, Any]:
    cwd = c.meta.get("cwd")
    return {"id": c.id, "title": c.display_title, "source": c.source_format,
            "project": cwd if isinstance(cwd, str) else None, "messages": c.message_count,
            "created": when(c.created_at), "updated": when(c.updated_at),
            "forked_from": c.forked_from_conversation_id}


def list_conversations(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    since = _moment("since", args["since"], day_end=False)
    until = _moment("until", args["until"], day_end=True)
    found = [c for c in archive.store.conversations() if _matches(c, args, since, until)]
    budget = Budget(args["max_chars"])
    start, limit = args["offset"], args["limit"]
    page = found[start:start + limit]
    rows = budget.take((conversation_row(c) for c in page),
                       "not every conversation of this page fitted in max_chars")
    shown = start + len(rows)
    return budget.finish({
        "total": len(found), "offset": start, "conversations": rows,
        "next_offset": shown if shown < len(found) else None})


def checkpoints(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    store = archive.store
    conv_id = args["conversation"]
    conv = store.conversation(conv_id, boundary=False)
    active = set(store.path_ids(conv.tip_id)) if conv.tip_id is not None else set()
    labelled = sorted(store.checkpoints(conv_id).items(), key=lambda kv: kv[1])
    budget = Budget(args["max_chars"])
    rows = budget.take((_checkpoint_row(archive, label, mid, active)
                        for label, mid in labelled),
                       "not every checkpoint fitted in max_chars")
    rewinds = budget.take(({"label": r["label"], "from_tip": r["from_tip_id"],
                            "to": r["to_message_id"], "when": when(r.get("created_at"))}
                           for r in store.rewinds(conv_id)),
                          "not every rewind fitted in max_chars")
    return budget.finish({"conversation": conv_id, "title": conv.display_title,
                          "tip": conv.tip_id, "checkpoints": rows, "rewinds": rewinds})


def _checkpoint_row(archive: Archive, label: str, mid: int, active: set[int]
                    ) -> dict[str, Any]:
    m = archive.message(archive.store.message(mid))
    return {"label": label, "message": mid, "role": m.role, "on_active_path": mid in active,
            "words": words_of(m)}
