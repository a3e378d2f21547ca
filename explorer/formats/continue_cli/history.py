"""A Continue CLI ``history`` list (``ChatHistoryItem``s) as a chain of messages.

An item is ``{message, contextItems, editorState?, toolCallStates?, conversationSummary?}``.
``message`` is Continue's ``ChatMessage``: ``user`` and ``assistant`` with ``content`` (text,
or a list of ``text``/``imageUrl`` parts), an assistant's ``toolCalls`` (OpenAI's shape) and
``usage`` (with the model's name), ``thinking`` (reasoning, joined to the answer after it)
and ``tool`` (a result, ``toolCallId``). The CLI keeps a call's result in the calling item's
``toolCallStates`` (``status``, ``output``: context items whose ``content`` is the text), so
each such item becomes the call and, after it, a tool message with the results (P1).

Items carry no ids and the file is written whole each time, so a message's key is a digest
of its parent's key and its own content: an item appended later keeps every earlier key (a
re-sync adds only it), and a history rewound and asked again branches where it changed.
A compaction replaces the history with one summary item (``conversationSummary``), where
the context restarts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable
from typing import Any

from explorer.formats.base import ImportedConversation
from explorer.formats.common import as_text, image_part
from explorer.tree.model import Message, Part, Role, Usage

FORMAT = "continue_cli"
_PENDING = ("generating", "generated", "calling")
_ERRORS = ("errored", "canceled")


def messages(sid: str, history: list[Any], conv: ImportedConversation
             ) -> tuple[list[Message], Hashable | None]:
    """The history's messages in order and the key where the context starts (or None)."""
    chain = _Chain(sid, conv)
    for n, item in enumerate(history):
        message = item.get("message") if isinstance(item, dict) else None
        if not isinstance(message, dict):
            conv.notes.append(f"history item {n}: no message object; skipped")
            continue
        chain.item(n, item, message)
    chain.flush_thinking()
    return chain.out, chain.context_start


class _Chain:
    def __init__(self, sid: str, conv: ImportedConversation) -> None:
        self.sid, self.conv = sid, conv
        self.out: list[Message] = []
        self.last: str | None = None
        self.thinking: list[Part] = []
        self.answered: set[str] = set()
        self.context_start: str | None = None

    def item(self, n: int, item: dict[str, Any], message: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "thinking":
            text = as_text(message.get("content")) if not isinstance(
                message.get("content"), list) else _joined(message["content"])
            kept = {k: message[k] for k in ("signature", "redactedThinking") if message.get(k)}
            self.thinking.append(Part("thinking", text, meta=kept))
            return
        if role == "user":
            self.flush_thinking()
            parts = self._content(message.get("content"), n)
            meta: dict[str, Any] = {}
            if item.get("contextItems"):
                meta["context_items"] = item["contextItems"]
            self._add("user", parts, meta=meta)
        elif role == "assistant":
            self._assistant(n, item, message)
        elif role == "tool":
            self.flush_thinking()
            call_id = as_text(message.get("toolCallId")) or None
            if call_id is None or call_id not in self.answered:
                self._add("tool", [Part("tool_result", as_text(message.get("content")),
                                        tool_use_id=call_id)])
        elif role == "system":
            self._add("system", self._content(message.get("content"), n))
        else:
            self.conv.ignored_records[f"message:{role}"] += 1
            self.conv.notes.append(f"history item {n}: role {role!r} unknown; skipped")

    def _assistant(self, n: int, item: dict[str, Any], message: dict[str, Any]) -> None:
        parts = [*self.thinking, *self._content(message.get("content"), n)]
        self.thinking = []
        calls = [c for c in message.get("toolCalls") or [] if isinstance(c, dict)]
        for call in calls:
            fn = _dict(call.get("function"))
            args = fn.get("arguments")
            parts.append(Part("tool_use", args if isinstance(args, str) else as_text(args or {}),
                              tool_name=as_text(fn.get("name")) or None,
                              tool_use_id=as_text(call.get("id")) or None))
        usage = _dict(message.get("usage"))
        model = as_text(usage.get("model")) or None
        meta: dict[str, Any] = {}
        if isinstance(usage.get("cost_cents"), int | float):
            meta["cost_cents"] = usage["cost_cents"]
        summary = item.get("conversationSummary")
        if summary is not None:
            meta["conversation_summary"] = True
        key = self._add("assistant", parts, model=model, usage=_usage(usage), meta=meta)
        if summary is not None:
            self.context_start = key
        results = [r for s in item.get("toolCallStates") or [] if isinstance(s, dict)
                   if (r := _result(s)) is not None]
        if results:
            self.answered |= {r.tool_use_id for r in results if r.tool_use_id}
            self._add("tool", results)

    def flush_thinking(self) -> None:
        """Reasoning with no answer after it stands as its own message."""
        if self.thinking:
            parts, self.thinking = self.thinking, []
            self._add("assistant", parts)

    def _content(self, content: Any, n: int) -> list[Part]:
        if isinstance(content, str):
            return [Part("text", content)] if content else []
        if not isinstance(content, list):
            return [Part("text", as_text(content))] if content is not None else []
        parts: list[Part] = []
        for raw in content:
            kind = raw.get("type") if isinstance(raw, dict) else None
            if kind == "text":
                parts.append(Part("text", as_text(raw.get("text"))))
            elif kind == "imageUrl":
                url = _dict(raw.get("imageUrl"))
                parts.append(_image(as_text(url.get("url")), self.conv.notes, n))
            else:
                self.conv.ignored_records[f"part:{kind}"] += 1
                self.conv.notes.append(f"history item {n}: part type {kind!r} unknown; skipped")
        return parts

    def _add(self, role: Role, parts: list[Part], *, model: str | None = None,
             usage: Usage | None = None, meta: dict[str, Any] | None = None) -> str:
        key = _key(self.last or self.sid, role, parts)
        self.out.append(Message(key, self.last, role, parts, None, model, usage,
                                source_id=key, source_meta=meta or {}))
        self.last = key
        return key


def _result(state: dict[str, Any]) -> Part | None:
    """The result a tool call state holds; None while the call has not finished."""
    status = as_text(state.get("status"))
    if status in _PENDING:
        return None
    call = _dict(state.get("toolCall"))
    fn = _dict(call.get("function"))
    output = state.get("output")
    pieces = output if isinstance(output, list) else []
    text = "\n".join(as_text(p.get("content")) if isinstance(p, dict) else as_text(p)
                     for p in pieces)
    if not text and status == "canceled":
        text = "[canceled]"
    return Part("tool_result", text, tool_name=as_text(fn.get("name")) or None,
                tool_use_id=as_text(state.get("toolCallId")) or as_text(call.get("id")) or None,
                is_error=status in _ERRORS, meta={"status": status} if status else {})


def _image(url: str, notes: list[str], n: int) -> Part:
    if url.startswith("data:image/") and ";base64," in url:
        head, data = url.split(";base64,", 1)
        return image_part(data, head.removeprefix("data:"), notes, f"history item {n}")
    return Part("text", f"[image: {url}]", meta={"continue": "imageUrl"})


def _usage(usage: dict[str, Any]) -> Usage | None:
    def n(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    counts = (n(usage.get("prompt_tokens")), n(usage.get("completion_tokens")))
    return Usage(*counts) if any(c is not None for c in counts) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _joined(content: list[Any]) -> str:
    return "\n".join(as_text(p.get("text")) for p in content if isinstance(p, dict))


def _key(parent: str, role: str, parts: list[Part]) -> str:
    """A digest of the parent's key and the message's content (see the module docstring)."""
    body = json.dumps([parent, role, [
        (p.kind, p.text, p.tool_use_id, p.is_error,
         hashlib.sha1(p.data).hexdigest() if p.data else None) for p in parts]],
        ensure_ascii=False)
    return hashlib.sha1(body.encode("utf-8", "surrogatepass")).hexdigest()[:20]
