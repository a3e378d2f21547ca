"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) as one conversation.

Every line is ``{timestamp, type, payload}`` (rollouts before mid-2025 wrote the
payload bare, after a header line holding the session's id). ``session_meta``
names the session, its working folder, git state and Codex version;
``turn_context`` the model for what follows; ``response_item`` lines are what
the model saw and said; ``compacted`` is Codex's own summary of the history
(kept as a compaction record; what follows it is where the context restarts);
``event_msg`` lines repeat the items for the terminal and carry token counts.

Items chain in file order: each one continues the previous. Keys are digests of
the line's bytes, so a rewritten file merges by content, and a sync that reads
only appended lines (see :mod:`explorer.formats.tailing`) builds the same
messages a whole read would.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedCompaction, ImportedConversation
from explorer.formats.codex.items import item_parts, item_role
from explorer.formats.common import as_text, finish, parse_time
from explorer.formats.jsonl import peek_objects
from explorer.formats.tailing import Cursor, Line, Tail, read_lines
from explorer.tree.model import Message, Usage

FORMAT = "codex"
_ITEM_TYPES = frozenset({
    "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
    "custom_tool_call_output", "local_shell_call", "web_search_call",
})  # fmt: skip
_REQUEST = re.compile(r"## My request for Codex:\s*\n(.+)", re.S)


def sniff(path: Path) -> bool:
    """A rollout opens with ``session_meta`` (or, in old files, a bare id/timestamp header)."""
    if not path.is_file():
        return False
    heads = peek_objects(path, max_objects=3)
    if not heads or not isinstance(heads[0], dict):
        return False
    head = heads[0]
    if head.get("type") == "session_meta":
        return isinstance(head.get("payload"), dict) and "id" in head["payload"]
    old_header = "id" in head and "timestamp" in head and "type" not in head
    return old_header and any(
        isinstance(h, dict) and (h.get("record_type") == "state" or h.get("type") in _ITEM_TYPES)
        for h in heads[1:])


def can_tail(path: Path) -> bool:
    """Every rollout is JSON Lines, so a sync can read on from an offset."""
    return True


def read(path: Path) -> Iterator[ImportedConversation]:
    tail = read_tail(path, None, whole=True)
    conv = tail.conversation
    if not conv.messages:
        raise FormatError(f"{path.name}: a Codex rollout without any message")
    yield finish(conv, conv.messages[-1].id)


def read_tail(path: Path, cursor: Cursor | None, *, whole: bool = False) -> Tail:
    """The messages of the lines after ``cursor`` (all of them for None)."""
    tail = read_lines(path, cursor, whole, _Builder)
    if cursor is None:
        tail.conversation.title = _title(tail.conversation.messages) or path.stem
    return tail


class _Builder:
    def __init__(self, path: Path, state: dict[str, Any]) -> None:
        self.state = state
        self.conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                         source_path=str(path))
        self.conv.source_id = state.get("session_id")

    def add(self, line: Line) -> None:
        raw = line.value
        kind, payload = raw.get("type"), raw.get("payload")
        if "payload" not in raw and (kind in _ITEM_TYPES or "record_type" in raw):
            kind, payload = "response_item", raw  # the bare items of early rollouts
        elif line.number == 1 and "id" in raw and kind is None:
            kind, payload = "session_meta", raw
        if not isinstance(payload, dict):
            self.conv.ignored_records[f"{kind}:<no payload>"] += 1
            return
        if kind == "response_item":
            self._item(line, payload, raw.get("timestamp"))
        elif kind == "session_meta":
            self._session(payload)
        elif kind == "turn_context":
            model = payload.get("model")
            self.state["model"] = model if isinstance(model, str) else self.state.get("model")
            self.state["effort"] = payload.get("effort")
            # the last one goes back out in a hand-back: Codex's baseline of what it told the model
            self.conv.meta["turn_context"] = payload
        elif kind == "compacted":
            self._compacted(payload)
        elif kind == "event_msg" and payload.get("type") == "token_count":
            self._usage(payload.get("info"))
        else:
            sub = payload.get("type") if kind == "event_msg" else payload.get("record_type")
            self.conv.ignored_records[f"{kind}:{sub}" if sub else str(kind)] += 1

    def _item(self, line: Line, payload: dict[str, Any], stamp: object) -> None:
        roles = item_role(payload)
        if roles is None:
            self.conv.ignored_records[f"response_item:{payload.get('type')}"] += 1
            return
        role, codex_role = roles
        where = f"line {line.number}"
        meta: dict[str, Any] = {"line": line.number, "codex_item": payload.get("type")}
        if codex_role in ("user", "developer", "system"):
            meta["codex_role"] = codex_role
        for key in ("phase", "id"):
            if isinstance(payload.get(key), str):
                meta[f"codex_{key}"] = payload[key]
        if role == "assistant" and self.state.get("effort"):
            meta["effort"] = self.state["effort"]
        message = Message(
            id=line.key, parent_id=self.state.get("last"), role=role,
            parts=item_parts(payload, self.conv.notes, where),
            created_at=parse_time(stamp), source_meta=meta,
            model=self.state.get("model") if role == "assistant" else None,
        )
        self.conv.messages.append(message)
        self.state["last"] = line.key
        if self.state.pop("restart", False):
            self.conv.context_start = line.key

    def _session(self, payload: dict[str, Any]) -> None:
        if self.state.get("session_id"):  # a resumed or forked session repeats its parents'
            self.conv.ignored_records["session_meta:repeated"] += 1
            return
        sid = as_text(payload.get("id")) or None
        self.state["session_id"] = self.conv.source_id = sid
        self.conv.created_at = parse_time(payload.get("timestamp"))
        meta = self.conv.meta
        meta["agent"] = FORMAT
        for ours, theirs in (("cwd", "cwd"), ("version", "cli_version"),
                             ("originator", "originator"), ("model_provider", "model_provider"),
                             ("source", "source")):
            if isinstance(payload.get(theirs), str):
                meta[ours] = payload[theirs]
        git = payload.get("git")
        if isinstance(git, dict):
            meta["git"] = git
            if isinstance(git.get("branch"), str):
                meta["git_branch"] = git["branch"]
        instructions = payload.get("base_instructions", payload.get("instructions"))
        if isinstance(instructions, dict):
            instructions = instructions.get("text")
        if isinstance(instructions, str) and instructions:
            meta["instructions"] = instructions

    def _compacted(self, payload: dict[str, Any]) -> None:
        last = self.state.get("last")
        history = payload.get("replacement_history")
        meta = {"origin": FORMAT, "replacement_items": len(history)
                if isinstance(history, list) else None}
        if last is None:
            self.conv.notes.append("a compaction before any message; skipped")
            return
        summary = as_text(payload.get("message"))
        self.conv.compactions.append(ImportedCompaction(last, "summary", summary, meta))
        self.state["restart"] = True

    def _usage(self, info: object) -> None:
        last = info.get("last_token_usage") if isinstance(info, dict) else None
        target = next((m for m in reversed(self.conv.messages) if m.role == "assistant"), None)
        if not isinstance(last, dict) or target is None or target.usage is not None:
            return
        counts = {k: v for k, v in last.items() if isinstance(v, int) and not isinstance(v, bool)}
        cached = counts.get("cached_input_tokens", 0)
        target.usage = Usage(
            input_tokens=max(0, counts.get("input_tokens", 0) - cached),
            output_tokens=counts.get("output_tokens"), cache_read_tokens=cached or None,
        )


def _title(messages: list[Message]) -> str:
    for m in messages:
        if m.is_prompt and m.text.strip():
            text = m.text
            found = _REQUEST.search(text)
            line = (found.group(1) if found else text).strip().splitlines()[0]
            return line[:80]
    return ""
