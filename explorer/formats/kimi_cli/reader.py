"""Kimi CLI sessions: the wire log ``wire.jsonl`` of ``~/.kimi/sessions/<hash>/<id>/``.

Kimi keeps two files per session. ``context.jsonl`` is what the model is sent next: it is
rewritten when the context is compacted or reverted, and has no times. ``wire.jsonl`` is
everything the agent said, as it happened, and is only appended to, so it is the one read:
a ``metadata`` line (``protocol_version``), then ``{timestamp, message: {type, payload}}``
lines. ``TurnBegin`` (and ``SteerInput``) carry the person's words; a turn's steps each
write their ``ContentPart`` (text, thinking), ``ToolCall`` and ``ToolResult`` lines, and a
``StatusUpdate`` with the step's token counts.

Each such line is a message of its own, chained in file order, keyed by a digest of the
line, so a sync reading only appended lines builds the messages a whole read would. The
model, work folder and title come from beside the file (:mod:`explorer.formats.kimi_cli.share`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import finish, parse_time, preview_title
from explorer.formats.jsonl import peek_objects, skipped_notes
from explorer.formats.kimi_cli.content import call_part, content_parts, result_part
from explorer.formats.kimi_cli.share import beside
from explorer.formats.tailing import Cursor, Line, LineTail, Tail
from explorer.tree.model import Message, Part, Role, Usage

FORMAT = "kimi_cli"
KNOWN = frozenset({
    "StepInterrupted", "StepRetry", "CompactionBegin", "CompactionEnd",
    "HookTriggered", "HookResolved", "MCPLoadingBegin", "MCPLoadingEnd", "Notification",
    "PlanDisplay", "BtwBegin", "BtwEnd", "SubagentEvent", "ApprovalRequest", "ApprovalResponse",
    "ApprovalRequestResolved", "ToolCallRequest", "QuestionRequest", "QuestionResponse",
    "HookRequest", "HookResponse", "ToolCallPart",
})  # fmt: skip
"""Wire messages that are not what was said (the terminal's events, requests and answers):
counted, not noted."""
KEPT_CALLS = 200
"""Tool calls whose names are remembered between syncs, for the results that answer them."""


def sniff(path: Path) -> bool:
    """The ``metadata`` header line, or ``{timestamp, message: {type, payload}}`` lines."""
    if not path.is_file():
        return False
    heads = peek_objects(path, max_objects=5)
    if not heads or not isinstance(heads[0], dict):
        return False
    head = heads[0]
    if head.get("type") == "metadata" and isinstance(head.get("protocol_version"), str):
        return set(head) <= {"type", "protocol_version"}
    return all(_is_record(v) for v in heads)


def _is_record(value: Any) -> bool:
    if not isinstance(value, dict) or set(value) != {"timestamp", "message"}:
        return False
    message = value["message"]
    return isinstance(message, dict) and isinstance(message.get("type"), str) and \
        isinstance(message.get("payload"), dict)


def read(path: Path) -> Iterator[ImportedConversation]:
    conv = read_tail(path, None, whole=True).conversation
    if not conv.messages:
        raise FormatError(f"{path.name}: a Kimi CLI session without any message")
    yield finish(conv, conv.messages[-1].id)


def can_tail(path: Path) -> bool:
    """The wire log is only appended to."""
    return True


def read_tail(path: Path, cursor: Cursor | None, *, whole: bool = False) -> Tail:
    """The messages of the lines after ``cursor`` (all of them for None)."""
    start = cursor or Cursor()
    lines = LineTail(path, start, whole=whole)
    builder = _Builder(path, dict(start.state), first=cursor is None)
    for line in lines:
        builder.add(line)
    conv = builder.conv
    conv.notes[:0] = skipped_notes(lines.skipped)
    if cursor is None and conv.messages:
        conv.title = conv.title or preview_title(conv.messages, conv.source_id or path.stem)
    calls = builder.state.get("calls") or {}
    while len(calls) > KEPT_CALLS:
        calls.pop(next(iter(calls)))
    lines.end.state = builder.state
    return Tail(conv, lines.end)


class _Builder:
    def __init__(self, path: Path, state: dict[str, Any], *, first: bool) -> None:
        self.state = state
        self.step: list[Message] = []  # this read's assistant messages of the current step
        found = beside(path)
        if first:
            state.update({"session": found.session, "model": found.model})
        self.conv = ImportedConversation(title=(found.title or "") if first else "",
                                         source_format=FORMAT, messages=[],
                                         source_path=str(path), source_id=state["session"])
        if first:
            meta = self.conv.meta
            meta["agent"] = FORMAT
            if found.cwd:
                meta["cwd"] = found.cwd
            if found.model:
                meta["model_from"] = "the default model of Kimi CLI's config.toml"

    def add(self, line: Line) -> None:
        raw = line.value
        where = f"line {line.number}"
        if raw.get("type") == "metadata":
            self.conv.meta["protocol_version"] = raw.get("protocol_version")
            return
        message = raw.get("message")
        kind = message.get("type") if isinstance(message, dict) else None
        payload = message.get("payload") if isinstance(message, dict) else None
        if not isinstance(kind, str) or not isinstance(payload, dict):
            self.conv.ignored_records["<line without message>"] += 1
            self.conv.notes.append(f"{where}: not a wire message (no type and payload); skipped")
            return
        when = parse_time(raw.get("timestamp"))
        if kind in ("TurnBegin", "SteerInput"):
            self.step = []
            self._emit(line, "user", self._parts(payload.get("user_input"), where), when, kind)
        elif kind in ("StepBegin", "TurnEnd"):
            self.step = []
        elif kind == "ContentPart":
            self._emit(line, "assistant", self._parts(payload, where), when, kind)
        elif kind == "ToolCall":
            part = call_part(payload)
            if part.tool_use_id and part.tool_name:
                self.state.setdefault("calls", {})[part.tool_use_id] = part.tool_name
            self._emit(line, "assistant", [part], when, kind)
        elif kind == "ToolResult":
            name = (self.state.get("calls") or {}).get(payload.get("tool_call_id"))
            parts = result_part(payload, name, where, self.conv.notes, self.conv.ignored_records)
            self._emit(line, "tool", parts, when, kind)
        elif kind == "StatusUpdate":
            self._usage(payload)
        else:
            if kind not in KNOWN and kind not in self.conv.ignored_records:
                self.conv.notes.append(f"{where}: a wire message of type {kind!r} is not "
                                       "read; skipped")
            self.conv.ignored_records[kind] += 1

    def _parts(self, value: object, where: str) -> list[Part]:
        return content_parts(value, where, self.conv.notes, self.conv.ignored_records)

    def _emit(self, line: Line, role: Role, parts: list[Part], when: float | None,
              kind: str) -> None:
        if not parts:
            return
        model = self.state.get("model") if role == "assistant" else None
        message = Message(line.key, self.state.get("last"), role, parts, when, model,
                          source_id=line.key,
                          source_meta={"line": line.number, "kimi_type": kind})
        self.conv.messages.append(message)
        self.state["last"] = line.key
        if self.conv.created_at is None and "started" not in self.state:
            self.conv.created_at = self.state["started"] = when
        if role == "assistant":
            self.step.append(message)

    def _usage(self, payload: dict[str, Any]) -> None:
        """A step's token counts go on its last answer read with them (one per step)."""
        target = self.step[-1] if self.step else None
        counts = payload.get("token_usage")
        if target is None or target.usage is not None or not isinstance(counts, dict):
            return
        n = {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}
        target.usage = Usage(n.get("input_other"), n.get("output"),
                             n.get("input_cache_read") or None,
                             n.get("input_cache_creation") or None)
        if isinstance(payload.get("message_id"), str):
            target.source_meta["response_id"] = payload["message_id"]
