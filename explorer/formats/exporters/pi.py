"""A pi coding-agent session file, version 3 (JSONL).

The first line is the ``session`` header (``version`` 3, ``id``, ``timestamp``,
``cwd``); then one ``message`` entry per message of the exported path, chained
by ``id``/``parentId``. Roles are ``user``, ``assistant`` and ``toolResult``;
content blocks are ``text``, ``thinking``, ``toolCall`` and ``image``.

pi answers each tool call with its own ``toolResult`` message, so the results
of one response become one entry per call. The path first goes through
:func:`answered_steps`, so every call is answered (an unanswered call gets an
error result saying it was interrupted). pi has no system message; a system
message is left out and noted. Entry ids are derived from the session and the
message ids, so the same branch always exports to the same bytes.

Labels: when the header names the conversation's current checkpoints
(``checkpoints``: label -> message id, as the store has them now), those are
written as ``label`` entries and the label entries kept from the import are
not, so a checkpoint deleted or moved in the program stays so in pi. Without
``checkpoints`` (a file-to-file conversion) the imported label entries are
written back as they were.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

from explorer.formats.exporters.claude_code import iso
from explorer.formats.exporters.steps import (
    Step,
    active_path,
    answered_steps,
    image_marker,
    session_uuid,
    tool_arguments,
)
from explorer.formats.pi.entries import AFTER, BEFORE, REFERENCES
from explorer.tree.model import Message, Part

NAMESPACE = uuid.UUID("0b7e1f3a-2d4c-4e8f-9a61-5c3d2b1a0f9e")
VERSION = 3
DEFAULT_CWD = "/"


def lines(
    header: Mapping[str, Any],
    messages: Sequence[Message],
    tip: Hashable | None,
    notes: list[str] | None = None,
) -> Iterator[str]:
    notes = notes if notes is not None else []
    path = active_path(messages, tip)
    session = session_uuid(NAMESPACE, header, path)
    meta = header.get("meta") or {}
    start = header.get("created_at") or (path[0].created_at if path else None)
    yield _dump(
        {
            "type": "session",
            "version": VERSION,
            "id": session,
            "timestamp": iso(start),
            "cwd": header.get("cwd") or meta.get("cwd") or DEFAULT_CWD,
        }
    )
    current = header.get("checkpoints")
    writer = _Writer(session, _tool_names(path), notes,
                     keep_labels=not isinstance(current, Mapping))
    writer.last_time = start if isinstance(start, int | float) else None
    title = header.get("title")
    if isinstance(title, str) and title.strip():
        yield writer.record({"type": "session_info", "name": title.strip()}, "session_info")
    if not path:
        notes.append("the conversation has no messages: the file holds the session header "
                     "and its name only")
    for step in answered_steps(path, notes):
        yield from writer.step(step)
    yield from writer.finish()
    if isinstance(current, Mapping):
        yield from writer.labels(current)


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _tool_names(path: Sequence[Message]) -> dict[str, str]:
    return {
        p.tool_use_id: p.tool_name or "tool" for m in path for p in m.tool_uses() if p.tool_use_id
    }


class _Writer:
    def __init__(self, session: str, names: dict[str, str], notes: list[str],
                 keep_labels: bool = True) -> None:
        self.session = session
        self.keep_labels = keep_labels
        self.entry_of: dict[Hashable, str] = {}  # message id -> its last entry in this file
        self.names = names
        self.notes = notes
        self.parent: str | None = None
        self.count: dict[Hashable, int] = {}
        self.last_time: float | None = None
        self.new_ids: dict[str, str] = {}  # pi entry ids at import -> ids in this file
        self.after: list[dict[str, Any]] = []

    def _new_id(self, key: str) -> str:
        n = self.count.get(key, 0)
        self.count[key] = n + 1
        return uuid.uuid5(NAMESPACE, f"{self.session}/{key}/{n}").hex[:12]

    def record(self, fields: dict[str, Any], key: str) -> str:
        """A non-message entry chained after the last one written."""
        entry_id = self._new_id(key)
        record = {"type": fields.get("type"), "id": entry_id, "parentId": self.parent,
                  "timestamp": fields.get("timestamp") or iso(self.last_time)}
        record.update({k: v for k, v in fields.items() if k not in record})
        self.parent = entry_id
        return _dump(record)

    def _entry(self, origin: Message, message: dict[str, Any]) -> Iterator[str]:
        if origin.id not in self.count:
            yield from self._kept(origin)
        entry_id = self._new_id(repr(origin.id))
        if origin.source_id is not None:
            self.new_ids.setdefault(str(origin.source_id), entry_id)
        self.last_time = origin.created_at or self.last_time
        message["timestamp"] = int((self.last_time or 0.0) * 1000)
        record = {
            "type": "message",
            "id": entry_id,
            "parentId": self.parent,
            "timestamp": iso(self.last_time),
            "message": message,
        }
        self.parent = entry_id
        self.count[origin.id] = self.count.get(origin.id, 0) + 1
        self.entry_of[origin.id] = entry_id
        yield _dump(record)

    def _kept(self, origin: Message) -> Iterator[str]:
        """The pi entries that stood around this message when it was imported."""
        yield from self.finish()
        for raw in self._wanted(origin.source_meta.get(BEFORE)):
            yield self._kept_entry(raw)
        self.after = self._wanted(origin.source_meta.get(AFTER))

    def _wanted(self, value: object) -> list[dict[str, Any]]:
        entries = _entries(value)
        return entries if self.keep_labels else [e for e in entries if e.get("type") != "label"]

    def labels(self, checkpoints: Mapping[str, object]) -> Iterator[str]:
        """The conversation's current checkpoints as label entries after the last entry."""
        for label, target in sorted(checkpoints.items(), key=lambda kv: str(kv[0])):
            entry = self.entry_of.get(target) if isinstance(target, Hashable) else None
            if entry is None:
                self.notes.append(f"checkpoint {label!r} is not on the exported path; "
                                  "not written")
                continue
            yield self.record({"type": "label", "targetId": entry, "label": label},
                              f"label/{label}")

    def _kept_entry(self, raw: dict[str, Any]) -> str:
        fields = {k: v for k, v in raw.items() if k != "pi_old_id"}
        for name in REFERENCES:
            old = fields.get(name)
            if isinstance(old, str) and old in self.new_ids:
                fields[name] = self.new_ids[old]
        line = self.record(fields, f"entry/{raw.get('pi_old_id')}")
        old_id = raw.get("pi_old_id")
        if isinstance(old_id, str):
            self.new_ids.setdefault(old_id, self.parent or "")
        return line

    def finish(self) -> Iterator[str]:
        """Entries that followed the last message written."""
        after, self.after = self.after, []
        for raw in after:
            yield self._kept_entry(raw)

    def step(self, step: Step) -> Iterator[str]:
        if step.role == "system":
            self.notes.append(
                f"message {step.origin.id}: system message left out "
                "(a pi session has no system messages)"
            )
        elif step.role == "assistant":
            yield from self._assistant(step.origin, step.parts)
        else:
            yield from self._user(step)

    def _assistant(self, origin: Message, parts: list[Part]) -> Iterator[str]:
        content = [_block(p) for p in parts if "pi_stop" not in p.meta]
        has_calls = any(p.kind == "tool_use" for p in parts)
        model = origin.model or "unknown"
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "api": origin.source_meta.get("api") or _api(model),
            "provider": origin.source_meta.get("provider") or _provider(model),
            "model": model,
            "usage": _usage(origin),
            "stopReason": "toolUse" if has_calls else "stop",
        }
        stopped = next((p.meta["pi_stop"] for p in parts if "pi_stop" in p.meta), None)
        if stopped in ("error", "aborted"):
            message["stopReason"] = stopped
            if isinstance(origin.source_meta.get("errorMessage"), str):
                message["errorMessage"] = origin.source_meta["errorMessage"]
        yield from self._entry(origin, message)

    def _user(self, step: Step) -> Iterator[str]:
        """Tool results one entry per call; any other content in one user entry after them."""
        by_call: dict[str | None, list[Part]] = {}
        other: list[Part] = []
        for p in step.parts:
            if p.kind == "tool_result":
                by_call.setdefault(p.tool_use_id, []).append(p)
            else:
                other.append(p)
        for key, results in by_call.items():
            yield from self._entry(
                step.origin,
                {
                    "role": "toolResult",
                    "toolCallId": key,
                    "toolName": self.names.get(key or "", "tool"),
                    "content": [_result_block(p) for p in results],
                    "isError": any(p.is_error for p in results),
                },
            )
        content = [_block(p) for p in other if p.kind != "text" or p.text]
        if content:
            yield from self._entry(step.origin, {"role": "user", "content": content})


def _entries(value: object) -> list[dict[str, Any]]:
    return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []


def _block(p: Part) -> dict[str, Any]:
    if p.kind == "thinking":
        block = {"type": "thinking", "thinking": p.text}
        if isinstance(p.meta.get("signature"), str):
            block["thinkingSignature"] = p.meta["signature"]
        return block
    if p.kind == "tool_use":
        return {
            "type": "toolCall",
            "id": p.tool_use_id,
            "name": p.tool_name or "tool",
            "arguments": tool_arguments(p.text),
        }
    if p.kind == "image" or p.data is not None:
        return _image(p)
    return {"type": "text", "text": p.text}


def _result_block(p: Part) -> dict[str, Any]:
    return _image(p) if p.data is not None else {"type": "text", "text": p.text}


def _image(p: Part) -> dict[str, Any]:
    if p.data is None:
        return {"type": "text", "text": image_marker(p)}
    return {
        "type": "image",
        "data": base64.b64encode(p.data).decode("ascii"),
        "mimeType": p.media_type or "application/octet-stream",
    }


def _provider(model: str) -> str:
    if model.startswith("claude"):
        return "anthropic"
    if model.startswith(("gpt-", "o1", "o3", "o4", "chatgpt")):
        return "openai"
    return "unknown"


def _api(model: str) -> str:
    return {"anthropic": "anthropic-messages", "openai": "openai-completions"}.get(
        _provider(model), "unknown"
    )


def _usage(m: Message) -> dict[str, Any]:
    u = m.usage
    counts = {
        "input": (u.input_tokens if u else None) or 0,
        "output": (u.output_tokens if u else None) or 0,
        "cacheRead": (u.cache_read_tokens if u else None) or 0,
        "cacheWrite": (u.cache_write_tokens if u else None) or 0,
    }
    cost = dict.fromkeys(("input", "output", "cacheRead", "cacheWrite", "total"), 0)
    if isinstance(m.source_meta.get("cost"), int | float):
        cost["total"] = m.source_meta["cost"]
    return {**counts, "totalTokens": sum(counts.values()), "cost": cost}
