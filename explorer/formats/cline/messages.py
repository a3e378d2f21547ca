"""Cline's stored messages as messages of the tree, for the CLI's sessions and the
extensions' task folders alike.

Both keep Anthropic-style messages (``role``, ``content`` blocks) with Cline's additions:
``id``, ``ts`` (epoch ms), ``modelInfo`` and ``metrics``. A user message may carry tool
results, the person's words, and context Cline adds for the model
(``<environment_details>``, the ``<user_input mode=…>`` or ``<task>`` wrapper): results
become a ``tool`` message, the words a prompt with the wrapper taken off, and the added
context is kept in the message's ``source_meta`` rather than shown as if typed.

Before native tool calling, Cline (and Roo Code, Kilo Code) wrote a call as XML-ish text
in the answer (``<read_file><path>a.py</path></read_file>``) and its result as user text
starting ``[read_file for 'a.py'] Result:``; such a call becomes a ``tool_use`` part keyed
``<message key>:call0`` and its result is paired with it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from explorer.formats.common import as_text, image_part
from explorer.tree.model import Message, Part, Usage

_CONTEXT = re.compile(r"<(environment_details|file_content[^>]*)>.*?</(environment_details|"
                      r"file_content)>", re.S)
_WRAPPER = re.compile(r"^\s*<(user_input|task|feedback|user_message|answer)(\s[^>]*)?>\s*"
                      r"(.*?)\s*</\1>\s*$", re.S)
_RESULT = re.compile(r"^\s*\[(\w+)(?: for [^\]]*)?\] Result:\s*", re.S)
XML_TOOLS = frozenset({
    "execute_command", "read_file", "write_to_file", "replace_in_file", "apply_diff",
    "insert_content", "search_and_replace", "search_files", "list_files",
    "list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource",
    "ask_followup_question", "attempt_completion", "plan_mode_respond", "new_task",
    "load_mcp_documentation", "web_fetch", "switch_mode", "codebase_search", "update_todo_list",
    "fetch_instructions", "condense", "new_rule", "report_bug", "summarize_task",
})
_XML_CALL = re.compile(r"<(" + "|".join(sorted(XML_TOOLS)) + r")>(.*?)</\1>", re.S)
_XML_PARAM = re.compile(r"<(\w+)>(.*?)</\1>", re.S)


@dataclass
class Converter:
    """Turns stored messages into tree messages, one after the other, chained."""

    notes: list[str]
    ignored: Any  # the conversation's ignored_records counter
    default_model: str | None = None
    last: Hashable | None = None
    open_xml: list[Part] = field(default_factory=list)
    """XML-ish calls of the last answer, waiting for their ``[tool] Result:`` text."""

    def add(self, raw: dict[str, Any], key: str, when: float | None) -> list[Message]:
        role = raw.get("role")
        blocks = raw.get("content")
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        if role not in ("user", "assistant") or not isinstance(blocks, list):
            self.ignored[f"message:{role}"] += 1
            return []
        meta: dict[str, Any] = {k: raw[k] for k in ("id", "ts", "modelInfo") if k in raw}
        made = (self._assistant(raw, blocks, key, when, meta) if role == "assistant"
                else self._user(blocks, key, when, meta))
        if made:
            self.last = made[-1].id
        return made

    def _assistant(self, raw: dict[str, Any], blocks: list[Any], key: str,
                   when: float | None, meta: dict[str, Any]) -> list[Message]:
        parts: list[Part] = []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                parts.extend(self._xml_calls(as_text(block.get("text")), key))
            elif kind in ("thinking", "reasoning"):
                text = as_text(block.get("thinking", block.get("text")))
                if text.strip():
                    parts.append(Part("thinking", text))
            elif kind == "tool_use":
                parts.append(Part("tool_use", json.dumps(block.get("input", {}),
                                                         ensure_ascii=False, default=str),
                                  tool_name=as_text(block.get("name")) or None,
                                  tool_use_id=as_text(block.get("id")) or None))
            else:
                self.ignored[f"block:{kind}"] += 1
        if not parts:
            return []
        self.open_xml = [p for p in parts if p.tool_use_id and p.meta.get("xml")]
        return [Message(key, self.last, "assistant", parts, when, _model(raw) or self.default_model,
                        _usage(raw.get("metrics")), source_id=key, source_meta=meta)]

    def _xml_calls(self, text: str, key: str) -> list[Part]:
        """The answer's text, with each XML-ish call (older Cline) as a ``tool_use`` part."""
        parts: list[Part] = []
        rest = 0
        for n, match in enumerate(_XML_CALL.finditer(text)):
            before = text[rest:match.start()].strip()
            if before:
                parts.append(Part("text", before))
            params = {m.group(1): m.group(2).strip() for m in _XML_PARAM.finditer(match.group(2))}
            parts.append(Part("tool_use", json.dumps(params, ensure_ascii=False),
                              tool_name=match.group(1), tool_use_id=f"{key}:call{n}",
                              meta={"xml": True}))
            rest = match.end()
        after = text[rest:].strip()
        if after:
            parts.append(Part("text", after))
        return parts

    def _user(self, blocks: list[Any], key: str, when: float | None,
              meta: dict[str, Any]) -> list[Message]:
        results: list[Part] = []
        said: list[Part] = []
        context: list[str] = []
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_result":
                results.append(_result(block, self.notes, key))
            elif kind == "text":
                text = as_text(block.get("text"))
                xml = self._xml_result(text)
                if xml is not None:
                    results.append(xml)
                    continue
                words, extra = person_text(text)
                context.extend(extra)
                if words:
                    said.append(Part("text", words))
            elif kind == "image":
                source = block.get("source")
                source = source if isinstance(source, dict) else {}
                said.append(image_part(source.get("data"), source.get("media_type"),
                                       self.notes, f"message {key}"))
            else:
                self.ignored[f"block:{kind}"] += 1
        if context:
            meta["context"] = context
        out: list[Message] = []
        parent = self.last
        if results:
            out.append(Message(key, parent, "tool", results, when, source_id=key,
                               source_meta=dict(meta)))
            parent = key
        if said:
            mid = f"{key}:said" if results else key
            out.append(Message(mid, parent, "user", said, when, source_id=mid, source_meta=meta))
        return out

    def _xml_result(self, text: str) -> Part | None:
        """``[tool for 'x'] Result: …`` answering the open XML-ish call of that tool."""
        match = _RESULT.match(text)
        if match is None or not self.open_xml:
            return None
        name = match.group(1)
        call = next((c for c in self.open_xml if c.tool_name == name), self.open_xml[0])
        self.open_xml.remove(call)
        body = _CONTEXT.sub("", text[match.end():]).strip()
        failed = body.startswith(("The tool execution failed", "Error"))
        return Part("tool_result", body, tool_name=call.tool_name, tool_use_id=call.tool_use_id,
                    is_error=failed)


def person_text(text: str) -> tuple[str, list[str]]:
    """The words a person typed, and the context Cline added around them."""
    extra = [m.group(0) for m in _CONTEXT.finditer(text)]
    words = _CONTEXT.sub("", text).strip()
    match = _WRAPPER.match(words)
    if match is not None:
        extra.append(f"<{match.group(1)}{match.group(2) or ''}>")
        words = match.group(3).strip()
    return words, extra


def _result(block: dict[str, Any], notes: list[str], key: str) -> Part:
    content = block.get("content")
    failed = bool(block.get("is_error"))
    texts: list[str] = []
    items = content if isinstance(content, list) else [content]
    for item in items:
        if isinstance(item, dict) and item.get("type") == "text":
            texts.append(as_text(item.get("text")))
        elif isinstance(item, dict) and "result" in item and "type" not in item:
            # the CLI's batched tools: one {query, result, success} per command or file
            failed = failed or item.get("success") is False
            head = as_text(item.get("query"))
            texts.append(f"{head}\n{as_text(item.get('result') or item.get('error'))}"
                         if head and len(items) > 1 else as_text(item.get("result")
                                                                  or item.get("error")))
        elif isinstance(item, dict) and item.get("type") == "image":
            texts.append("[image]")
        elif item is not None:
            texts.append(as_text(item))
    return Part("tool_result", "\n".join(texts), tool_name=as_text(block.get("name")) or None,
                tool_use_id=as_text(block.get("tool_use_id")) or None, is_error=failed)


def _model(raw: dict[str, Any]) -> str | None:
    info = raw.get("modelInfo")
    if isinstance(info, dict):
        model = info.get("modelId") or info.get("id")
        return model if isinstance(model, str) and model else None
    return None


def _usage(metrics: Any) -> Usage | None:
    if not isinstance(metrics, dict):
        return None
    n = {k: v for k, v in metrics.items() if isinstance(v, int) and not isinstance(v, bool)}
    tokens = n.get("inputTokens"), n.get("outputTokens")
    if tokens == (None, None):
        return None
    return Usage(tokens[0], tokens[1], n.get("cacheReadTokens") or None,
                 n.get("cacheWriteTokens") or None)


def message_key(raw: dict[str, Any], index: int, seen: set[str]) -> str:
    """A key that stays the same when the file is rewritten with more messages: the
    message's id, else its timestamp and role, else its place."""
    mid = raw.get("id")
    ts = raw.get("ts")
    if isinstance(mid, str) and mid:
        key = mid
    elif isinstance(ts, int | float) and not isinstance(ts, bool):
        key = f"{int(ts)}:{raw.get('role')}"
    else:
        key = f"#{index}"
    if key in seen:
        key = f"{key}#{index}"
    seen.add(key)
    return key
