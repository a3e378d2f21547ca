"""The lines of a Claude Code session that are not a user or assistant message.

A compaction boundary becomes a system message of the chain; a ``system`` notice and a
file-history snapshot become muted records (see :mod:`records`); a summary or a custom
title is kept for the conversation; anything else (progress, attachments, hook records)
is kept only as a link, so a message whose parent it is resolves to the nearest message,
and is counted among the ignored records.
"""

from __future__ import annotations

from typing import Any

from explorer.formats.claude_code.blocks import (
    as_dict,
    as_str,
    parse_timestamp,
    tool_use_result_meta,
)
from explorer.formats.claude_code.records import (
    RECORD_KEY,
    SNAPSHOTS_KEY,
    notice_record,
    notice_text,
    snapshot_text,
)
from explorer.formats.claude_code.session import Node, Session
from explorer.tree.model import Part

_LINE_FIELDS = (
    "sessionId", "cwd", "gitBranch", "version", "requestId", "isSidechain", "isMeta",
    "timestamp", "agentId", "isCompactSummary", "isApiErrorMessage", "userType", "entrypoint",
)  # fmt: skip


def line_meta(number: int, entry: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """The source metadata every message keeps of its (first) line."""
    meta: dict[str, Any] = {"line": number}
    for name in _LINE_FIELDS:
        value = entry.get(name)
        if value is not None:
            meta[name] = value
    if message.get("id") is not None:
        meta["message_id"] = message["id"]
    if message.get("stop_reason") is not None:
        meta["stop_reason"] = message["stop_reason"]
    if entry.get("toolUseResult") is not None:
        meta["toolUseResult"] = tool_use_result_meta(entry["toolUseResult"])
    return meta


def add_boundary(s: Session, number: int, entry: dict[str, Any], uuid: str, *,
                 synthetic: bool, parent: str | None, stamp: float | None,
                 offset: int = 0) -> None:
    """A ``compact_boundary``: the system message where Claude Code compacted the chain."""
    s.raw_parent[uuid] = parent
    text = as_str(entry.get("content")) or "Conversation compacted"
    meta = line_meta(number, entry, {})
    meta["compactMetadata"] = as_dict(entry.get("compactMetadata"))
    meta["logicalParentUuid"] = as_str(entry.get("logicalParentUuid"))
    node = Node(
        key=uuid, role="system", line=number, parent_uuid=parent,
        parts=[Part("text", text)], created_at=stamp, meta=meta,
        sidechain=entry.get("isSidechain") is True, compact_boundary=True,
        synthetic_key=synthetic, start=offset,
    )  # fmt: skip
    s.place(uuid, node)


def add_notice(s: Session, number: int, entry: dict[str, Any], uuid: str, *,
               parent: str | None, stamp: float | None, offset: int, light: bool) -> None:
    """A ``system`` notice in the chain: a muted record, never sent to a model. A light one
    keeps only its kind; its record is read again when it is stored."""
    s.raw_parent[uuid] = parent
    meta = line_meta(number, entry, {})
    meta.update({"meta_record": "notice", "notice": as_str(entry.get("subtype")) or "",
                 RECORD_KEY: notice_record(entry)})
    if light:
        meta = {"meta_record": "notice", "notice": meta["notice"]}
    node = Node(key=uuid, role="system", line=number, parent_uuid=parent,
                parts=[Part("text", notice_text(entry))], created_at=stamp, meta=meta,
                sidechain=entry.get("isSidechain") is True, light=light, start=offset)
    s.place(uuid, node)


def add_snapshot(s: Session, number: int, entry: dict[str, Any], *, stamp: float | None,
                 offset: int, light: bool) -> None:
    """The files a prompt may change, kept above that prompt (see ``records``); a later
    record for the same prompt updates its node. A light one's records are read again when
    it is stored."""
    s.snapshots += 1
    stamp = stamp or parse_timestamp(as_dict(entry.get("snapshot")).get("timestamp"))
    target = str(entry["messageId"])
    node = s.snapshot_nodes.get(target)
    if node is not None:  # an update of the same prompt's snapshot
        if node.light:
            node.add_line(None, offset)
        else:
            node.meta[SNAPSHOTS_KEY].append(entry)
        return
    meta: dict[str, Any] = {"meta_record": "file_snapshot"} if light else {
        "line": number, "meta_record": "file_snapshot", SNAPSHOTS_KEY: [entry]}
    node = Node(key=f"snapshot:{target}", role="system", line=number, parent_uuid=None,
                parts=[Part("text", snapshot_text([entry]))], created_at=stamp, meta=meta,
                snapshot_of=target, light=light, start=offset)
    s.nodes.append(node)
    s.snapshot_nodes[target] = node


def add_record(s: Session, entry: dict[str, Any], uuid: str | None,
               parent: str | None) -> None:
    """Any other line: a summary or a title for the conversation, else a link only."""
    if uuid is not None:
        s.raw_parent[uuid] = parent
    kind = entry.get("type")
    if kind == "summary" and as_str(entry.get("summary")):
        s.summaries.append((entry["summary"], as_str(entry.get("leafUuid"))))
        return
    if kind == "custom-title" and as_str(entry.get("customTitle")):
        s.custom_title = entry["customTitle"]
        return
    if kind == "file-history-snapshot":
        s.snapshots += 1
    s.ignored[_record_name(entry)] += 1


def _record_name(entry: dict[str, Any]) -> str:
    kind = entry.get("type")
    name = kind if isinstance(kind, str) else "(no type)"
    if kind in ("user", "assistant"):
        found = "content" if isinstance(entry.get("message"), dict) else "message object"
        return f"{name} (no {found})"
    subtype = entry.get("subtype")
    return f"{name}:{subtype}" if kind == "system" and isinstance(subtype, str) else name
