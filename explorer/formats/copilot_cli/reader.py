"""GitHub Copilot CLI sessions (``~/.copilot/session-state/<session id>/events.jsonl``).

The client appends one event per line, ``{type, data, id, timestamp, parentId}``, the
first a ``session.start`` (``sessionId``, ``copilotVersion``, ``selectedModel``,
``context.cwd``). Each event's ``parentId`` is the event before it, so messages chain in
file order; a resumed session appends a ``session.resume`` and goes on. How one event
becomes messages is in :mod:`explorer.formats.copilot_cli.events`; events the client keeps
for itself (turn markers, usage records, hooks) are counted, and a type of no known family
is named once in the notes. The file only grows while the client runs (a rewind rewrites
it, which a sync sees as a file that no longer matches its cursor), so a sync reads only
the lines appended since the last one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedCompaction, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.copilot_cli.events import (
    BOOKKEEPING,
    answer_parts,
    as_dict,
    attachments,
    notice,
    prompt_parts,
    result_part,
    usage,
    user_tool_parts,
)
from explorer.formats.jsonl import peek_objects
from explorer.formats.tailing import Cursor, Line, Tail, read_lines
from explorer.tree.model import Message, Part, Role

FORMAT = "copilot_cli"
_START = "session.start"


def sniff(path: Path) -> bool:
    """A Copilot CLI event log opens with its ``session.start`` event."""
    if not path.is_file():
        return False
    heads = peek_objects(path, max_objects=1)
    head = heads[0] if heads else None
    if not isinstance(head, dict) or head.get("type") != _START:
        return False
    data = head.get("data")
    return isinstance(data, dict) and isinstance(data.get("sessionId"), str) and (
        "copilotVersion" in data or data.get("producer") == "copilot-agent")


def can_tail(path: Path) -> bool:
    return True


def read(path: Path) -> Iterator[ImportedConversation]:
    conv = read_tail(path, None, whole=True).conversation
    if not conv.messages:
        raise FormatError(f"{path.name}: a Copilot CLI session without any message")
    conv.title = conv.title or preview_title(conv.messages, conv.source_id or path.parent.name)
    yield finish(conv, conv.messages[-1].id)


def read_tail(path: Path, cursor: Cursor | None, *, whole: bool = False) -> Tail:
    """The messages of the events after ``cursor`` (the whole log for None)."""
    return read_lines(path, cursor, whole, _Builder)


class _Builder:
    """Turns events into messages; ``state`` is what the next tail read needs to go on."""

    def __init__(self, path: Path, state: dict[str, Any]) -> None:
        self.state = state
        self.conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                         source_path=str(path), source_id=state.get("session"))
        self.conv.meta["agent"] = FORMAT
        self.unknown: set[str] = set(state.get("unknown") or ())

    def add(self, line: Line) -> None:
        event = line.value
        kind = event.get("type")
        data = as_dict(event.get("data"))
        where = f"line {line.number}"
        if not isinstance(kind, str):
            self.conv.ignored_records["<no type>"] += 1
            self.conv.notes.append(f"{where}: an event without a type; skipped")
            return
        if event.get("ephemeral") is True:
            self.conv.ignored_records[kind] += 1
            return
        key = as_text(event.get("id")) or f"line{line.number}"
        when = parse_time(event.get("timestamp"))
        if kind == _START:
            self._start(data)
        elif kind == "user.message":
            meta = {k: data[k] for k in ("source", "agentMode", "isAutopilotContinuation")
                    if data.get(k) is not None}
            if attachments(data):
                meta["attachments"] = attachments(data)
            self._message(key, "user", prompt_parts(data, where, self.conv.notes), when, meta)
        elif kind == "assistant.reasoning":
            text = as_text(data.get("content")).strip()
            self.state["thought"] = text
            if text:
                self._message(key, "assistant", [Part("thinking", text)], when, {}, data)
        elif kind == "assistant.message":
            self._answer(key, data, when)
        elif kind == "tool.user_requested":
            self._remember_tools(user_tool_parts(data))
            self._message(key, "assistant", user_tool_parts(data), when,
                          {"user_requested": True}, data)
        elif kind == "tool.execution_complete":
            call = as_text(data.get("toolCallId"))
            self._message(key, "tool", [result_part(data, self._tool_name(call))], when, {}, data)
        elif kind == "session.usage_record":
            self._usage(data)
        elif kind == "session.model_change" and as_text(data.get("newModel")):
            self.state["model"] = as_text(data.get("newModel"))
        elif kind == "session.compaction_complete":
            self._compaction(data)
        elif kind == "session.title_changed" and as_text(data.get("title")).strip():
            self.conv.title = as_text(data.get("title")).strip()[:80]
        elif kind == "system.message" and "instructions" not in self.conv.meta:
            self.conv.meta["instructions"] = as_text(data.get("content"))
        elif (said := notice(kind, data)) is not None:
            self._message(key, said[0], [Part("text", said[1])], when, {"copilot_event": kind})
        else:
            self._ignore(kind)

    def _start(self, data: dict[str, Any]) -> None:
        sid = as_text(data.get("sessionId")) or None
        self.conv.source_id = self.state["session"] = sid
        self.conv.created_at = parse_time(data.get("startTime"))
        context = as_dict(data.get("context"))
        for ours, value in (("cwd", context.get("cwd")), ("git_branch", context.get("branch")),
                            ("repository", context.get("repository")),
                            ("version", data.get("copilotVersion")),
                            ("producer", data.get("producer"))):
            if isinstance(value, str) and value:
                self.conv.meta[ours] = value
        if as_text(data.get("selectedModel")):
            self.state["model"] = as_text(data.get("selectedModel"))

    def _answer(self, key: str, data: dict[str, Any], when: float | None) -> None:
        parts = answer_parts(data, self.state.pop("thought", None))
        self._remember_tools(parts)
        model = as_text(data.get("model")) or None
        if model and not data.get("parentToolCallId"):  # a sub-agent's model is its own
            self.state["model"] = model
        message = self._message(key, "assistant", parts, when, {}, data, model)
        pending = self.state.get("usage")
        call = as_text(data.get("apiCallId"))
        if isinstance(pending, dict) and call in pending and message is not None:
            counts = pending.pop(call)
            message.usage = usage({"usage": counts})

    def _message(self, key: str, role: Role, parts: list[Part], when: float | None,
                 meta: dict[str, Any], data: dict[str, Any] | None = None,
                 model: str | None = None) -> Message | None:
        if not parts:
            self.conv.ignored_records[f"empty {role} event"] += 1
            return None
        meta = dict(meta)
        sub = as_text((data or {}).get("parentToolCallId"))
        if sub:
            meta["subagent_of"] = sub
        if data is not None and as_text(data.get("turnId")):
            meta["turn"] = as_text(data.get("turnId"))
        message = Message(key, self.state.get("last"), role, parts, when,
                          (model or self.state.get("model")) if role == "assistant" else None,
                          source_id=key, source_meta=meta)
        self.conv.messages.append(message)
        self.state["last"] = key
        if self.state.pop("restart", False):
            self.conv.context_start = key
        return message

    def _usage(self, data: dict[str, Any]) -> None:
        raw = data.get("usage")
        call = as_text(raw.get("apiCallId")) if isinstance(raw, dict) else ""
        if call:  # the record comes just before the answer it counts
            pending = self.state.setdefault("usage", {})
            pending.clear()
            pending[call] = raw

    def _compaction(self, data: dict[str, Any]) -> None:
        summary = as_text(data.get("summaryContent"))
        last = self.state.get("last")
        if data.get("success") is False or not summary.strip():
            self.conv.ignored_records["session.compaction_complete (no summary)"] += 1
            return
        if last is None:
            self.conv.notes.append("a compaction before any message; skipped")
            return
        meta = {"origin": FORMAT, **{k: data[k] for k in (
            "trigger", "preCompactionTokens", "postCompactionTokens", "messagesRemoved",
            "checkpointNumber", "model") if data.get(k) is not None}}
        self.conv.compactions.append(ImportedCompaction(last, "summary", summary, meta))
        self.state["restart"] = True

    def _remember_tools(self, parts: list[Part]) -> None:
        for p in parts:
            if p.kind == "tool_use" and p.tool_use_id and p.tool_name:
                self.state.setdefault("tools", {})[p.tool_use_id] = p.tool_name

    def _tool_name(self, call: str) -> str | None:
        """The name of the call a result answers (kept in the cursor until it comes)."""
        names = self.state.get("tools")
        name = names.pop(call, None) if isinstance(names, dict) else None
        return name if isinstance(name, str) else None

    def _ignore(self, kind: str) -> None:
        self.conv.ignored_records[kind] += 1
        if kind.startswith(BOOKKEEPING) or kind in self.unknown:
            return
        self.unknown.add(kind)
        self.state["unknown"] = sorted(self.unknown)
        self.conv.notes.append(f"events of type {kind!r} are not read; skipped")
