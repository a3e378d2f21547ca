"""Qwen Code chat recordings (``~/.qwen/projects/<cwd>/chats/<sessionId>.jsonl``).

Qwen Code forked Gemini CLI but records its sessions its own way: one JSON line per record,
appended, each with ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``type`` (``user``,
``assistant``, ``tool_result``, ``system``), ``cwd``, ``version`` and ``gitBranch``; message
records hold the model's Gemini ``Content`` (see :mod:`explorer.formats.qwen_code.parts`).
Records form a tree by ``parentUuid``: a rewind continues from an earlier record, so the
abandoned turns stay as a branch. ``system`` records (telemetry, attribution snapshots, the
session's model, a title) are nodes of that tree too, so a message's parent is its nearest
*message* ancestor. The tip is the message at or above the last record.

A sync reads only appended lines: which message stands above each recent non-message record
travels in the cursor, and a parent not found there is a message stored before.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedCompaction, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.jsonl import peek_objects, skipped_notes
from explorer.formats.qwen_code.parts import record_message, record_role
from explorer.formats.tailing import Cursor, Line, LineTail, Tail

FORMAT = "qwen_code"
_TYPES = frozenset({"user", "assistant", "tool_result", "system"})
_QUIET = frozenset({"ui_telemetry", "attribution_snapshot", "file_history_snapshot"})
"""System records that only the terminal replays; counted, never a note of their own."""
KEPT_LINKS = 2000
"""Non-message records whose message above is remembered between syncs (a rewind reaches
back to one of them; an older one sends the sync to a whole read)."""


def sniff(path: Path) -> bool:
    """A record with a ``uuid`` and ``sessionId`` whose message is Gemini ``Content`` (parts),
    or that carries a ``systemPayload``: Claude Code's records hold ``message.content``."""
    if not path.is_file():
        return False
    return any(_looks_like_record(v) for v in peek_objects(path))


def _looks_like_record(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("type") not in _TYPES:
        return False
    if not isinstance(value.get("uuid"), str) or not isinstance(value.get("sessionId"), str):
        return False
    body = value.get("message")
    return (isinstance(body, dict) and isinstance(body.get("parts"), list)) or \
        isinstance(value.get("systemPayload"), dict)


def read(path: Path) -> Iterator[ImportedConversation]:
    conv = read_tail(path, None, whole=True).conversation
    if not conv.messages:
        raise FormatError(f"{path.name}: a Qwen Code chat without any message")
    yield finish(conv, conv.tip)


def can_tail(path: Path) -> bool:
    """The recorder only appends."""
    return True


def read_tail(path: Path, cursor: Cursor | None, *, whole: bool = False) -> Tail:
    """The messages of the lines after ``cursor`` (all of them for None)."""
    start = cursor or Cursor()
    lines = LineTail(path, start, whole=whole)
    builder = _Builder(path, dict(start.state), stored=cursor is not None)
    for line in lines:
        builder.add(line)
    conv = builder.build()
    conv.notes[:0] = skipped_notes(lines.skipped)
    if cursor is None and conv.messages:
        conv.title = conv.title or preview_title(conv.messages, conv.source_id or path.stem)
    lines.end.state = builder.state
    return Tail(conv, lines.end)


class _Builder:
    def __init__(self, path: Path, state: dict[str, Any], *, stored: bool) -> None:
        self.state = state
        self.stored = stored  # a parent not met in this read is a message stored before
        links = state.get("links")
        self.links: dict[str, str | None] = dict(links) if isinstance(links, dict) else {}
        self.ids: set[str] = set()
        self.conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                         source_path=str(path), source_id=state.get("session"))

    def add(self, line: Line) -> None:
        record = line.value
        where = f"line {line.number}"
        uid = record.get("uuid")
        if not isinstance(uid, str) or not uid:
            self.conv.ignored_records["<record without uuid>"] += 1
            self.conv.notes.append(f"{where}: a record without a uuid; skipped")
            return
        if "session" not in self.state:
            self._header(record)
        above = self._message_at(record.get("parentUuid"), where)
        role = record_role(record)
        if role is None:
            self._other(record, uid, above, where)
            self.links.pop(uid, None)
            self.links[uid] = above
        else:
            message = record_message(record, above, role, where, self.conv.notes,
                                     self.conv.ignored_records)
            self.conv.messages.append(message)
            self.ids.add(uid)
            if self.state.pop("restart", False):  # the model's context starts again here
                self.conv.context_start = uid
        self.state["last"] = uid

    def _header(self, record: dict[str, Any]) -> None:
        sid = as_text(record.get("sessionId")) or None
        self.state["session"] = self.conv.source_id = sid
        self.conv.created_at = parse_time(record.get("timestamp"))
        meta = self.conv.meta
        meta["agent"] = FORMAT
        for ours, theirs in (("cwd", "cwd"), ("version", "version"), ("git_branch", "gitBranch")):
            if isinstance(record.get(theirs), str):
                meta[ours] = record[theirs]

    def _message_at(self, uid: object, where: str) -> str | None:
        """The message at record ``uid`` or, for another record, the nearest above it."""
        if uid is None:
            return None
        key = as_text(uid)
        if key in self.ids:
            return key
        if key in self.links:
            return self.links[key]
        if self.stored:
            return key
        self.conv.notes.append(f"{where}: parent record {key!r} is not in the file; "
                               "made it a root")
        return None

    def _other(self, record: dict[str, Any], uid: str, above: str | None, where: str) -> None:
        kind, subtype = record.get("type"), record.get("subtype")
        payload = record.get("systemPayload")
        payload = payload if isinstance(payload, dict) else {}
        if kind == "system" and subtype == "custom_title":
            title = as_text(payload.get("customTitle")).strip()
            if title:
                self.conv.title = title[:80]
        elif kind == "system" and subtype == "session_model":
            if isinstance(payload.get("modelId"), str):
                self.conv.meta["model"] = payload["modelId"]
        elif kind == "system" and subtype == "chat_compression" and above is not None:
            info = payload.get("info")
            meta = {"origin": FORMAT, "record": uid, **(info if isinstance(info, dict) else {})}
            summary = _history_text(payload.get("compressedHistory"))
            self.conv.compactions.append(ImportedCompaction(above, "summary", summary, meta))
            self.state["restart"] = True
        else:
            name = f"{kind}:{subtype}" if isinstance(subtype, str) else as_text(kind)
            if name not in self.conv.ignored_records and subtype not in _QUIET \
                    and kind != "system":
                self.conv.notes.append(f"{where}: a {name!r} record is not a message; skipped")
            self.conv.ignored_records[name] += 1

    def build(self) -> ImportedConversation:
        while len(self.links) > KEPT_LINKS:
            self.links.pop(next(iter(self.links)))
        self.state["links"] = self.links
        last = self.state.get("last")
        self.conv.tip = self._message_at(last, "the last record") if last is not None else None
        return self.conv


def _history_text(history: object) -> str:
    """The text of the history a compression left (its summary, as the model is told it)."""
    if not isinstance(history, list):
        return ""
    texts = [as_text(part.get("text")) for content in history if isinstance(content, dict)
             for part in (content.get("parts") or []) if isinstance(part, dict) and "text" in part]
    return "\n\n".join(t for t in texts if t.strip())
