"""Gemini CLI saved chats (``~/.gemini/tmp/<project>/chats/session-*.json[l]``).

Two shapes. The older recorder rewrites one JSON object on every message:
``{sessionId, projectHash, startTime, lastUpdated, messages: [...]}``. The newer
one appends JSON Lines: a header line with the same session fields, then one
line per message record, ``{"$set": {...}}`` lines patching the header, and a
record written again (same id) when its tool calls finish: the last copy wins.
Records chain in the order their ids first appear. How one record becomes
messages is in :mod:`explorer.formats.gemini_cli.records`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, json_object, parse_time, preview_title
from explorer.formats.gemini_cli.records import (
    record_messages,
    response_messages,
    tool_responses,
)
from explorer.formats.jsonl import peek_objects, peek_prefix, skipped_notes
from explorer.formats.tailing import Cursor, LineTail, Tail

FORMAT = "gemini_cli"
_HEADER = ("sessionId", "projectHash")


def sniff(path: Path) -> bool:
    if not path.is_file():
        return False
    heads = peek_objects(path, max_objects=1)
    if heads and isinstance(heads[0], dict):
        head = heads[0]
        return all(k in head for k in _HEADER) and ("messages" in head or "startTime" in head)
    prefix = peek_prefix(path, max_bytes=2048).lstrip(b"\xef\xbb\xbf \t\r\n")
    return prefix.startswith(b"{") and all(f'"{k}"'.encode() in prefix for k in _HEADER)


def read(path: Path) -> Iterator[ImportedConversation]:
    jsonl = _is_jsonl(path)
    conv = read_tail(path, None, whole=True).conversation if jsonl else _read_json(path)
    if not conv.messages:
        raise FormatError(f"{path.name}: a Gemini CLI chat without any message")
    conv.title = conv.title or preview_title(conv.messages, conv.source_id or path.stem)
    yield finish(conv, conv.messages[-1].id)


def can_tail(path: Path) -> bool:
    """Only the JSON Lines shape grows by appending; the JSON shape is rewritten whole."""
    return _is_jsonl(path)


def _is_jsonl(path: Path) -> bool:
    heads = peek_objects(path, max_objects=1)
    return bool(heads) and isinstance(heads[0], dict) and "messages" not in heads[0]


def _read_json(path: Path) -> ImportedConversation:
    data = json_object(path, "a Gemini CLI chat")
    builder = _Builder(path, {})
    builder.header(data)
    records = data.get("messages")
    if not isinstance(records, list):
        raise FormatError(f"{path.name}: no messages list")
    for index, record in enumerate(records):
        builder.record(record, f"message {index}")
    return builder.build()


def read_tail(path: Path, cursor: Cursor | None, *, whole: bool = False) -> Tail:
    """The records of the lines after ``cursor`` (JSONL chats only)."""
    start = cursor or Cursor()
    lines = LineTail(path, start, whole=whole)
    builder = _Builder(path, dict(start.state))
    for line in lines:
        value = line.value
        if all(k in value for k in _HEADER) and "id" not in value:
            builder.header(value)  # the first line, or the header again (a migrated chat)
        elif "$set" in value:
            patch = value["$set"]
            if isinstance(patch, dict):
                builder.conv.meta.update({k: v for k, v in patch.items() if k in _KEPT})
        elif any(k.startswith("$") for k in value):
            builder.conv.ignored_records[next(k for k in value if k.startswith("$"))] += 1
        else:
            builder.record(value, f"line {line.number}")
    conv = builder.build()
    conv.notes[:0] = skipped_notes(lines.skipped)
    lines.end.state = builder.state
    return Tail(conv, lines.end)


_KEPT = ("projectHash", "startTime", "lastUpdated", "kind", "summary", "directories")


class _Builder:
    def __init__(self, path: Path, state: dict[str, Any]) -> None:
        self.state = state
        self.records: dict[str, dict[str, Any]] = {}
        self.where: dict[str, str] = {}
        self.conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                         source_path=str(path), source_id=state.get("session"))

    def header(self, value: dict[str, Any]) -> None:
        sid = as_text(value.get("sessionId")) or None
        self.conv.source_id = self.state["session"] = sid
        self.conv.created_at = parse_time(value.get("startTime"))
        self.conv.meta.update({k: value[k] for k in _KEPT if k in value})
        self.conv.meta["agent"] = FORMAT
        if isinstance(value.get("summary"), str) and value["summary"].strip():
            self.conv.title = value["summary"].strip()[:80]

    def record(self, record: object, where: str) -> None:
        if not isinstance(record, dict) or not as_text(record.get("id")):
            self.conv.ignored_records["<record without id>"] += 1
            if isinstance(record, dict) and ("type" in record or "content" in record):
                # a message without its id is damage; other id-less lines are bookkeeping
                self.conv.notes.append(f"{where}: a message record without an id; skipped")
            return
        rid = as_text(record["id"])
        if rid in self.records:
            self.conv.ignored_records["rewritten record (last copy kept)"] += 1
        else:
            self.where[rid] = where
        self.records[rid] = record

    def build(self) -> ImportedConversation:
        answered = set(self.state.get("answered") or ())
        for rid, record in self.records.items():
            if tool_responses(record) is not None:  # the turn's tool output: folds into it
                made = response_messages(record, self.state.get("last"), answered)
            else:
                made = record_messages(record, self.state.get("last"), self.conv.notes,
                                       self.where[rid])
                if not made:
                    self.conv.ignored_records[f"message:{record.get('type')}"] += 1
                    continue
            for m in made:
                if m.role == "tool":  # the calls a later tool-response record repeats
                    answered = {p.tool_use_id for p in m.parts if p.tool_use_id}
            self.conv.messages.extend(made)
            if made:
                self.state["last"] = made[-1].id
        self.state["answered"] = sorted(answered)
        return self.conv
