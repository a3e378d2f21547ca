"""Claude Code's own records kept as muted messages: ``system`` notices and file-history snapshots.

Claude Code writes notices into the chain of a session (how long a turn took, what a
stop hook did, a local command, an "away" summary, an API error it retried) and,
before each prompt, a snapshot of the files it may change (``file-history-snapshot``,
later updated in place by ``isSnapshotUpdate`` records). Neither is something a person
or the model said, and neither is sent to a model (see
:func:`explorer.app.views.meta_records.sent_to_models`); both are kept as messages marked
``meta_record`` ("notice", "file_snapshot") so they are shown as the muted cards of the
tools' own records, and their raw record goes back out in a Claude Code export.

A notice is a node of the chain like any line with a uuid. A snapshot has no uuid:
it names the prompt it was taken before (``messageId``) and is put just above that
prompt, which keeps the parent it was written with in ``reparented_from``.
"""

from __future__ import annotations

from typing import Any

from explorer.formats.claude_code.blocks import as_str

RECORD_KEY = "claude_record"
"""Source metadata: the notice's record as Claude Code wrote it (minus the chain fields)."""
SNAPSHOTS_KEY = "claude_snapshots"
"""Source metadata: the snapshot records of one prompt, in file order."""
CHAIN_FIELDS = ("uuid", "parentUuid", "sessionId", "timestamp")


def notice_text(entry: dict[str, Any]) -> str:
    """What a notice says, in words: its own text, or what its fields mean."""
    subtype = as_str(entry.get("subtype")) or "notice"
    content = entry.get("content")
    if isinstance(content, str) and content.strip():
        return content
    if subtype == "turn_duration" and isinstance(entry.get("durationMs"), int | float):
        count = entry.get("messageCount")
        tail = f" ({count} messages)" if isinstance(count, int) else ""
        return f"Turn took {entry['durationMs'] / 1000:.1f} s{tail}"
    if subtype == "stop_hook_summary":
        hooks = entry.get("hookCount")
        errors = entry.get("hookErrors")
        text = f"Stop hook summary: {hooks if isinstance(hooks, int) else '?'} hook(s) ran"
        if isinstance(errors, list) and errors:
            text += f", {len(errors)} error(s)"
        return text
    return subtype.replace("_", " ").capitalize()


def notice_record(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in CHAIN_FIELDS}


def snapshot_text(records: list[dict[str, Any]]) -> str:
    """A line about the first snapshot of a prompt: how many files it tracked."""
    first = records[0].get("snapshot") if records else None
    backups = first.get("trackedFileBackups") if isinstance(first, dict) else None
    count = len(backups) if isinstance(backups, dict) else 0
    names = ", ".join(sorted(backups)[:5]) if isinstance(backups, dict) else ""
    text = f"File history snapshot: {count} tracked file(s)"
    return f"{text} ({names}{', …' if count > 5 else ''})" if names else text
