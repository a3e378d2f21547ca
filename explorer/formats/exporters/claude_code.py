"""A Claude Code session file (JSONL) that ``claude --resume`` can continue.

Lines chain through ``uuid``/``parentUuid`` along the exported path. An
assistant message is written as Claude Code writes a response: one line per
content block, the lines sharing ``message.id`` and ``requestId``; each tool
result is a user line of its own; the rest of a user message is one line.

The path first goes through :func:`answered_steps`, so every tool call is
answered in the next line (an unanswered call gets an error result saying it
was interrupted). Identifiers are uuid5 values derived from the session and the
message ids, so exporting the same branch twice gives the same bytes; the
session id also depends on the tip, so two branches never share one.

Claude Code's own records come back as it wrote them: a ``system`` notice in the
chain, a file-history snapshot just before the prompt it names (with that prompt's
new uuid). What Claude Code cannot take is left out and noted: other system
messages (Claude Code brings its own system prompt) and thinking without a signature (the API
refuses a replayed thinking block it did not sign). Save the file as
``<sessionId>.jsonl`` in ``~/.claude/projects/<cwd with / as ->/``.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Hashable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from explorer.formats.claude_code.records import RECORD_KEY, SNAPSHOTS_KEY
from explorer.formats.exporters.steps import (
    Step,
    ToolIds,
    active_path,
    answered_steps,
    image_marker,
    sendable_image,
    session_uuid,
    tool_arguments,
    tool_name,
)
from explorer.tree.model import Message, Part

NAMESPACE = uuid.UUID("6f0c54c8-5c4e-4a57-9d0e-3b1e0f6c2a91")
VERSION = "2.1.0"
DEFAULT_CWD = "/"


def session_id(header: Mapping[str, Any], path: Sequence[Message]) -> str:
    """The session's id: the same conversation and tip always give the same id."""
    return session_uuid(NAMESPACE, header, path)


def lines(
    header: Mapping[str, Any],
    messages: Sequence[Message],
    tip: Hashable | None,
    notes: list[str] | None = None,
) -> Iterator[str]:
    notes = notes if notes is not None else []
    path = active_path(messages, tip)
    writer = _Writer(header, session_id(header, path), notes)
    if header.get("title"):
        yield _dump(
            {"type": "custom-title", "customTitle": header["title"], "sessionId": writer.session}
        )
    for step in answered_steps(path, notes):
        yield from writer.step(step)
    if writer.unsigned:
        notes.append(
            f"{writer.unsigned} thinking part(s) without a signature left out "
            "(the API refuses to replay thinking it did not sign)"
        )


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def iso(seconds: float | None) -> str:
    """ISO 8601 in UTC with milliseconds, as Claude Code writes timestamps."""
    when = datetime.fromtimestamp(seconds or 0.0, UTC)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Writer:
    """Turns steps into lines, keeping the chain and the identifiers consistent."""

    def __init__(self, header: Mapping[str, Any], session: str, notes: list[str]) -> None:
        meta = header.get("meta") or {}
        self.session = session
        self.notes = notes
        self.parent: str | None = None
        self.ids = ToolIds()
        self.count: dict[Hashable, int] = {}
        self.last_time = header.get("created_at")
        self.common: dict[str, Any] = {
            "isSidechain": False,
            "userType": "external",
            "cwd": header.get("cwd") or meta.get("cwd") or DEFAULT_CWD,
            "sessionId": session,
            "version": meta.get("version") or VERSION,
        }
        if meta.get("git_branch"):
            self.common["gitBranch"] = meta["git_branch"]
        self.unsigned = 0
        self.snapshots: list[dict[str, Any]] = []  # a prompt's, written before its line
        self.stash: list[str] = []  # those snapshots, naming the line that follows them

    def _uuid(self, origin: Message, tag: str = "") -> str:
        n = self.count.get(origin.id, 0)
        self.count[origin.id] = n + 1
        return str(uuid.uuid5(NAMESPACE, f"{self.session}/{origin.id!r}/{n}{tag}"))

    def _line(
        self,
        kind: str,
        origin: Message,
        message: dict[str, Any],
        extra: dict[str, Any] | None = None,
    ) -> str:
        self.last_time = origin.created_at or self.last_time
        line_id = self._uuid(origin)
        self.stash = [_dump({**s, "messageId": line_id, "snapshot": {
            **(s.get("snapshot") or {}), "messageId": line_id}}) for s in self.snapshots]
        self.snapshots = []
        record = {
            "parentUuid": self.parent,
            **self.common,
            "type": kind,
            "message": message,
            **(extra or {}),
            "uuid": line_id,
            "timestamp": iso(self.last_time),
        }
        self.parent = line_id
        return _dump(record)

    def _record(self, origin: Message, raw: dict[str, Any]) -> str:
        """A notice as Claude Code wrote it, in this session's chain."""
        self.last_time = origin.created_at or self.last_time
        line_id = self._uuid(origin)
        record = {"parentUuid": self.parent, **raw, "sessionId": self.session, "uuid": line_id,
                  "timestamp": iso(self.last_time)}
        self.parent = line_id
        return _dump(record)

    def step(self, step: Step) -> Iterator[str]:
        for line in self._step(step):
            stashed, self.stash = self.stash, []
            yield from stashed
            yield line

    def _step(self, step: Step) -> Iterator[str]:
        meta = step.origin.source_meta
        if step.role == "system" and isinstance(meta.get(RECORD_KEY), dict):
            yield self._record(step.origin, meta[RECORD_KEY])
            return
        if step.role == "system" and isinstance(meta.get(SNAPSHOTS_KEY), list):
            self.snapshots = [s for s in meta[SNAPSHOTS_KEY] if isinstance(s, dict)]
            return
        if step.role == "system":
            self.notes.append(
                f"message {step.origin.id}: system message left out "
                "(Claude Code supplies its own system prompt)"
            )
            return
        blocks = [b for p in step.parts if (b := self._block(p, step.role)) is not None]
        blocks = _merge_results(blocks)
        if not blocks:
            return
        if step.role == "user":
            yield from self._user(step.origin, blocks)
        else:
            yield from self._assistant(step.origin, blocks)

    def _user(self, origin: Message, blocks: list[dict[str, Any]]) -> Iterator[str]:
        """Each tool result on its own line, as Claude Code writes them; other content after."""
        for block in blocks:
            if block["type"] == "tool_result":
                yield self._line("user", origin, {"role": "user", "content": [block]})
        rest = [b for b in blocks if b["type"] != "tool_result"]
        if not rest:
            return
        content: Any = rest[0]["text"] if len(rest) == 1 and rest[0]["type"] == "text" else rest
        yield self._line("user", origin, {"role": "user", "content": content})

    def _assistant(self, origin: Message, blocks: list[dict[str, Any]]) -> Iterator[str]:
        message_id = "msg_" + self._uuid(origin, "/message").replace("-", "")
        request_id = "req_" + self._uuid(origin, "/request").replace("-", "")
        has_calls = any(b["type"] == "tool_use" for b in blocks)
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            message = {
                "model": origin.model or "unknown",
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": ("tool_use" if has_calls else "end_turn") if last else None,
                "stop_sequence": None,
                "usage": _usage(origin),
            }
            yield self._line("assistant", origin, message, {"requestId": request_id})

    def _block(self, p: Part, role: str) -> dict[str, Any] | None:
        if p.kind == "text":
            return {"type": "text", "text": p.text} if p.text.strip() else None
        if p.kind == "thinking":
            return self._thinking(p)
        if p.kind == "tool_use":
            return {
                "type": "tool_use",
                "id": self.ids(p.tool_use_id),
                "name": tool_name(p.tool_name),
                "input": tool_arguments(p.text),
            }
        if p.kind == "tool_result":
            content: list[dict[str, Any]] = []
            if p.data is not None:
                content.append(_image(p))
            elif p.text:
                content.append({"type": "text", "text": p.text})
            return {
                "type": "tool_result",
                "tool_use_id": self.ids(p.tool_use_id),
                "content": content,
                "is_error": p.is_error,
            }
        if role == "user" and sendable_image(p):
            return _image(p)
        return {"type": "text", "text": image_marker(p)}

    def _thinking(self, p: Part) -> dict[str, Any] | None:
        if p.meta.get("redacted") and isinstance(p.meta.get("data"), str):
            return {"type": "redacted_thinking", "data": p.meta["data"]}
        signature = p.meta.get("signature")
        if isinstance(signature, str) and signature:
            return {"type": "thinking", "thinking": p.text, "signature": signature}
        self.unsigned += 1
        return None


def _merge_results(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One ``tool_result`` block per call: later parts of one result join its content."""
    out: list[dict[str, Any]] = []
    by_call: dict[str, dict[str, Any]] = {}
    for block in blocks:
        key = block.get("tool_use_id") if block["type"] == "tool_result" else None
        if key is not None and key in by_call:
            by_call[key]["content"].extend(block["content"])
            by_call[key]["is_error"] = by_call[key]["is_error"] or block["is_error"]
            continue
        if key is not None:
            by_call[key] = block
        out.append(block)
    return out


def _image(p: Part) -> dict[str, Any]:
    if not sendable_image(p):
        return {"type": "text", "text": image_marker(p)}
    data = base64.b64encode(p.data or b"").decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": p.media_type, "data": data}}


def _usage(m: Message) -> dict[str, int]:
    u = m.usage
    if u is None:
        return {"input_tokens": 0, "output_tokens": 0}
    out = {"input_tokens": u.input_tokens or 0, "output_tokens": u.output_tokens or 0}
    if u.cache_read_tokens is not None:
        out["cache_read_input_tokens"] = u.cache_read_tokens
    if u.cache_write_tokens is not None:
        out["cache_creation_input_tokens"] = u.cache_write_tokens
    return out
