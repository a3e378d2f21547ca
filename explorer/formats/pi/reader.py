"""pi / oh-my-pi coding-agent sessions (JSONL, versions 1 to 3).

The first line is a ``session`` header (``version``, ``id``, ``cwd``,
``timestamp``); oh-my-pi puts a fixed-width title slot line before it (see
``header``). Every later line is an entry with a ``type``. From version 2
entries carry ``id``/``parentId`` and form a tree; version 1 entries have no ids
and chain in file order (so do v2+ entries that lost their ids). Version 3 only
renamed the ``hookMessage`` role to ``custom``.

Only ``message`` and ``custom_message`` entries become messages. The others
(model and thinking-level changes, compactions, labels, ...) are still nodes of
pi's tree, so a message's parent is its nearest *message* ancestor. A
``compaction`` becomes a summary compaction record on the message it followed; a
``branch_summary`` (the digest pi writes when a person leaves a branch) becomes a
compaction record of kind ``branch_summary`` rather than a message: it is text pi
derived, not something a person or model said, and as a message it would open a
turn and move the turn boundaries of the real conversation. ``label`` entries
become checkpoints. The title is the name the last ``session_info`` (pi) or
``title_change`` (oh-my-pi) entry gave. The tip is the message at or above the last
entry.

"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.formats.base import (
    FormatError,
    ImportedCheckpoint,
    ImportedCompaction,
    ImportedConversation,
)
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.jsonl import JsonlReader, peek_objects, skipped_notes
from explorer.formats.pi.content import failure_parts, message_parts
from explorer.formats.pi.entries import SEED, keep_entries
from explorer.formats.pi.header import is_header, is_slot, slot_title
from explorer.formats.tailing import TailUnplaceable
from explorer.tree.model import Message, Role, Usage

FORMAT = "pi"

# ---------------------------------------------------------------------------
# pi sessions
# ---------------------------------------------------------------------------

MESSAGE_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "tool",
    "bashExecution": "user",
    "custom": "user",
    "hookMessage": "user",
}


@dataclass
class _Entry:
    id: str
    parent: str | None
    type: str
    index: int
    raw: dict[str, Any]
    message: Message | None = None


def sniff(path: Path) -> bool:
    """A pi session starts with a ``session`` header line carrying an id (in oh-my-pi's
    files, right after the title slot)."""
    try:
        heads = peek_objects(path, max_objects=2)
    except OSError:
        return False
    if heads and is_slot(heads[0]):
        heads = heads[1:]
    return bool(heads) and is_header(heads[0])


def read(path: Path) -> Iterator[ImportedConversation]:
    """One conversation per session file."""
    reader = JsonlReader(path)
    lines = iter(reader)
    first, title = next(lines, None), None
    if first is not None and is_slot(first[1]):  # oh-my-pi's title slot, then the header
        title = slot_title(first[1])
        first = next(lines, None)
    if first is None or first[1].get("type") != "session":
        raise FormatError(f"{path.name}: not a pi session (no session header line)")
    header = first[1]
    version = header.get("version")
    notes: list[str] = []
    builder = _SessionBuilder(version if isinstance(version, int) else 1, notes)
    for index, (lineno, raw) in enumerate(lines, 1):
        builder.add(index, lineno, raw)
    notes[:0] = skipped_notes(reader.skipped)
    yield builder.build(header, path, title)


class _SessionBuilder:
    """Collects entries, then resolves pi's entry tree into a message tree."""

    def __init__(self, version: int, notes: list[str]) -> None:
        self.version = version
        self.notes = notes
        self.entries: dict[str, _Entry] = {}
        self.order: list[_Entry] = []
        self.conv = ImportedConversation(title="", source_format=FORMAT, messages=[], notes=notes)
        self.labels: dict[str, str] = {}
        self.previous: str | None = None  # the entry before the first one added (a tail)
        self.stored = False  # ids not among the entries are stored messages (a tail)

    def add(self, index: int, lineno: int, raw: dict[str, Any]) -> None:
        kind = raw.get("type")
        if not isinstance(kind, str):
            self.conv.ignored_records["<no type>"] += 1
            self.notes.append(f"line {lineno}: entry has no type; skipped")
            return
        entry_id, parent = self._ids(lineno, raw)
        if entry_id in self.entries:
            self.notes.append(f"line {lineno}: duplicate entry id {entry_id!r}; kept the first")
            return
        entry = _Entry(entry_id, parent, kind, index, raw)
        self.entries[entry_id] = entry
        self.order.append(entry)
        self._absorb(entry, lineno)

    def _ids(self, lineno: int, raw: dict[str, Any]) -> tuple[str, str | None]:
        previous = self.order[-1].id if self.order else self.previous
        entry_id = raw.get("id")
        if self.version < 2 or not isinstance(entry_id, str | int) or isinstance(entry_id, bool):
            if self.version >= 2:
                self.notes.append(f"line {lineno}: entry has no id; chained it to the previous")
            return f"line{lineno}", previous
        parent = raw.get("parentId", previous)
        if parent is not None and not isinstance(parent, str | int):
            self.notes.append(f"line {lineno}: parentId {parent!r} is not an id; made it a root")
            parent = None
        return str(entry_id), None if parent is None else str(parent)

    def message_parent(self, entry: _Entry) -> str | None:
        """The nearest message above ``entry``; a missing id is returned as is."""
        seen: set[str] = set()
        node = entry.parent
        while node is not None:
            above = self.entries.get(node)
            if above is None or above.message is not None:
                return node
            if node in seen:
                self.notes.append(f"entry {entry.id!r}: parent pointers form a cycle; cut it")
                return None
            seen.add(node)
            node = above.parent
        return None

    def message_at(self, entry_id: str | None) -> str | None:
        """The message at ``entry_id`` or, for another entry, the nearest above it."""
        entry = self.entries.get(entry_id) if entry_id is not None else None
        if entry is None:
            return entry_id if self.stored else None
        if entry.message is not None:
            return entry.id
        found = self.message_parent(entry)
        return found if found in self.entries or self.stored else None

    def chain(self, entry_id: str) -> list[str]:
        """Entry ids from the root down to ``entry_id`` (cycle-safe)."""
        out: list[str] = []
        seen: set[str] = set()  # a list lookup here made a long session's read quadratic
        node: str | None = entry_id
        while node is not None and node in self.entries and node not in seen:
            out.append(node)
            seen.add(node)
            node = self.entries[node].parent
        out.reverse()
        return out

    def _collect(self) -> ImportedConversation:
        """The conversation with every entry's message under its parent message, in file order."""
        conv = self.conv
        for entry in self.order:
            if entry.message is not None:
                entry.message.parent_id = self.message_parent(entry)
                conv.messages.append(entry.message)
        self._attach_records()
        keep_entries(self.order, self.entries)
        return conv

    def build(self, header: dict[str, Any], path: Path,
              slot: str | None = None) -> ImportedConversation:
        """The conversation; its title is the last name an entry gave it, else the title
        slot's (which oh-my-pi cuts to 256 bytes) or an older header's ``title``."""
        conv = self._collect()
        conv.source_id = as_text(header.get("id")) or None
        conv.source_path = str(path)
        conv.created_at = parse_time(header.get("timestamp"))
        keys = ("cwd", "version", "parentSession", "branchedFrom")
        conv.meta.update({k: header[k] for k in keys if k in header})
        named = header.get("title")
        name = conv.meta.pop("session_name", None) or slot or (
            named.strip() if isinstance(named, str) else None)
        conv.title = name or preview_title(conv.messages, conv.source_id or path.stem)
        tip = self.message_at(self.order[-1].id) if self.order else None
        return finish(conv, tip)

    def tail(self, sid: str, path: Path) -> ImportedConversation:
        """The messages of entries read after a sync's cursor: parents may be stored ones."""
        conv = self._collect()
        conv.source_id, conv.source_path = sid, str(path)
        conv.tip = self.message_at(self.order[-1].id) if self.order else None
        return conv

    # -- entries ------------------------------------------------------------

    def _absorb(self, entry: _Entry, lineno: int) -> None:
        raw, meta = entry.raw, self.conv.meta
        if entry.type in ("message", "custom_message"):
            entry.message = self._message(entry, lineno)
        elif entry.type == "model_change":  # oh-my-pi names it "provider/model" in ``model``
            change = {k: raw[k] for k in ("provider", "modelId", "model") if k in raw}
            meta.setdefault("model_changes", []).append(change)
        elif entry.type == "thinking_level_change":
            meta.setdefault("thinking_levels", []).append(raw.get("thinkingLevel"))
        elif entry.type in ("session_info", "title_change"):  # pi's name, oh-my-pi's title
            name = raw.get("name" if entry.type == "session_info" else "title")
            meta["session_name"] = name.strip() if isinstance(name, str) else None
        elif entry.type not in ("compaction", "branch_summary", "label"):
            # ``custom`` is extension state pi never sends to a model; the rest is unknown.
            self.conv.ignored_records[entry.type] += 1

    def _message(self, entry: _Entry, lineno: int) -> Message | None:
        raw = entry.raw
        body = raw if entry.type == "custom_message" else raw.get("message")
        if not isinstance(body, dict):
            self.conv.ignored_records["message:<no body>"] += 1
            self.notes.append(f"line {lineno}: message entry without a message object; skipped")
            return None
        role_name = "custom" if entry.type == "custom_message" else body.get("role")
        role = MESSAGE_ROLES.get(role_name) if isinstance(role_name, str) else None
        if role is None or not isinstance(role_name, str):
            self.conv.ignored_records[f"message:{role_name}"] += 1
            self.notes.append(f"line {lineno}: message role {role_name!r} is unknown; skipped")
            return None
        meta: dict[str, Any] = {k: body[k] for k in _META_KEYS if k in body}
        meta["line"] = lineno
        if role_name not in ("user", "assistant", "toolResult"):
            meta["pi_role"] = role_name
        usage_raw = body.get("usage")
        usage = _usage(usage_raw) if role == "assistant" and isinstance(usage_raw, dict) else None
        if usage is not None and isinstance(usage_raw, dict):
            cost = usage_raw.get("cost")
            if isinstance(cost, dict) and isinstance(cost.get("total"), int | float):
                meta["cost"] = cost["total"]
        model = body.get("model")
        parts = message_parts(role_name, body, f"line {lineno}", self.notes,
                              self.conv.ignored_records)
        if role_name == "assistant":
            parts += failure_parts(body)
        return Message(
            id=entry.id,
            parent_id=None,
            role=role,
            parts=parts,
            created_at=parse_time(raw.get("timestamp")) or parse_time(body.get("timestamp")),
            model=model if isinstance(model, str) else None,
            usage=usage,
            source_id=entry.id if self.version >= 2 else None,
            source_meta=meta,
        )

    # -- records that point into the tree --------------------------------------

    def _attach_records(self) -> None:
        active = set(self.chain(self.order[-1].id)) if self.order else set()
        for entry in self.order:
            if entry.type == "compaction":
                self._compaction(entry, entry.id in active)
            elif entry.type == "branch_summary":
                self._branch_summary(entry)
            elif entry.type == "label":
                self._label(entry)
        self._checkpoints()

    def _anchor(self, entry: _Entry) -> str | None:
        anchor = self.message_parent(entry)
        if anchor is None or (anchor not in self.entries and not self.stored):
            self.conv.ignored_records[entry.type] += 1
            self.notes.append(f"{entry.type} {entry.id!r} follows no message; skipped")
            return None
        return anchor

    def _compaction(self, entry: _Entry, on_active_path: bool) -> None:
        anchor = self._anchor(entry)
        if anchor is None:
            return
        raw = entry.raw
        first_kept = self._first_kept(entry)
        meta = {"origin": FORMAT, "source_id": entry.id, "first_kept_key": first_kept}
        meta.update({_SNAKE[k]: raw[k] for k in _SNAKE if k in raw})
        summary = as_text(raw.get("summary"))
        self.conv.compactions.append(ImportedCompaction(anchor, "summary", summary, meta))
        if on_active_path and first_kept is not None:
            self.conv.context_start = first_kept

    def _first_kept(self, entry: _Entry) -> str | None:
        raw = entry.raw
        target = raw.get("firstKeptEntryId")
        index = raw.get("firstKeptEntryIndex")
        if target is None and isinstance(index, int):  # v1 counts entries from the header
            target = next((e.id for e in self.order if e.index == index), None)
        chain = self.chain(entry.id)
        if self.stored and (target is None or str(target) not in chain
                            or self.entries[str(target)].type == SEED):
            raise TailUnplaceable(f"compaction {entry.id!r} keeps entries read earlier")
        if target is None or str(target) not in chain:
            self.notes.append(f"compaction {entry.id!r}: first kept entry {target!r} not above it")
            return None
        start = chain.index(str(target))
        return next((e for e in chain[start:-1] if self.entries[e].message is not None), None)

    def _branch_summary(self, entry: _Entry) -> None:
        anchor = self._anchor(entry)
        if anchor is None:
            return
        raw = entry.raw
        from_id = raw.get("fromId")
        meta = {
            "origin": FORMAT,
            "source_id": entry.id,
            "from_key": self.message_at(str(from_id)) if from_id is not None else None,
        }
        meta.update({_SNAKE[k]: raw[k] for k in ("details", "fromHook") if k in raw})
        summary = as_text(raw.get("summary"))
        self.conv.compactions.append(ImportedCompaction(anchor, "branch_summary", summary, meta))

    def _label(self, entry: _Entry) -> None:
        target, label = entry.raw.get("targetId"), entry.raw.get("label")
        if isinstance(label, str) and label.strip():
            self.labels.pop(str(target), None)  # re-insert so the newest setting sorts last
            self.labels[str(target)] = label.strip()
        else:
            self.labels.pop(str(target), None)

    def _checkpoints(self) -> None:
        by_label: dict[str, str] = {}
        for target, label in self.labels.items():
            key = self.message_at(target)
            if key is None:
                self.notes.append(f"label {label!r}: target {target!r} is not in the tree; dropped")
            else:
                if label in by_label:
                    self.notes.append(f"label {label!r} was set twice; kept the later one")
                by_label[label] = key
        self.conv.checkpoints = [ImportedCheckpoint(lb, key) for lb, key in by_label.items()]


_META_KEYS = (
    "provider", "api", "stopReason", "errorMessage", "toolName", "customType", "display",
    "command", "exitCode", "cancelled", "truncated", "excludeFromContext",
)
_SNAKE = {"tokensBefore": "tokens_before", "details": "details", "fromHook": "from_hook",
          "usage": "usage"}


def _usage(raw: dict[str, Any]) -> Usage | None:
    names = {"input": "input_tokens", "output": "output_tokens",
             "cacheRead": "cache_read_tokens", "cacheWrite": "cache_write_tokens"}
    counts = {names[k]: int(v) for k, v in raw.items()
              if k in names and isinstance(v, int | float) and not isinstance(v, bool)
              and math.isfinite(v)}
    return Usage(**counts) if counts else None
