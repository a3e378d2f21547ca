"""One GitHub Copilot CLI event as the messages of the tree it makes (most make none).

The events are the client's own (``session-events.schema.json`` in its package): a
``user.message`` is a prompt (``content`` as the person typed it; ``transformedContent``
is what the model saw, with a timestamp preamble), an ``assistant.message`` an answer
with its ``toolRequests`` (the calls), ``tool.execution_complete`` one call's result, and
``assistant.reasoning`` the model's thinking. Events a sub-agent wrote carry the
``parentToolCallId`` of the call that started it; they stay in the order they happened,
between that call and its result, marked with it.
"""

from __future__ import annotations

import json
from typing import Any

from explorer.formats.common import as_text, image_part
from explorer.tree.model import Part, Role, Usage

# Families of events the client writes for its own bookkeeping (turn markers, hooks,
# permissions, MCP servers, sub-agent lifecycle, ...): counted, never named in a note.
BOOKKEEPING = ("session.", "assistant.", "tool.", "hook.", "permission.", "subagent.",
               "mcp.", "mcp_app.", "elicitation.", "skill.", "command.", "commands.",
               "workflow.", "external_tool.", "sampling.", "exit_plan_mode.", "user_input.",
               "auto_mode_switch.", "capabilities.", "pending_messages.", "model.",
               "session_limits_exhausted.", "human_response.", "tool_search.", "ui.",
               "system.")


def prompt_parts(data: dict[str, Any], where: str, notes: list[str]) -> list[Part]:
    """A person's message: the text they typed, then the images they attached (other
    attachments, files and selections, are named in the message's metadata)."""
    parts = [Part("text", as_text(data.get("content")))]
    for item in _dicts(data.get("attachments")):
        mime = as_text(item.get("mimeType"))
        if item.get("type") in ("blob", "image") and mime.startswith("image/"):
            parts.append(image_part(item.get("data"), mime, notes, where))
    return parts


def attachments(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The attachments without their inline data (kept as images where they are)."""
    return [{k: v for k, v in a.items() if k != "data"} for a in _dicts(data.get("attachments"))]


def answer_parts(data: dict[str, Any], thought: str | None) -> list[Part]:
    """An answer: its reasoning (unless an ``assistant.reasoning`` event just gave the same
    text), its text, and one ``tool_use`` per requested call."""
    parts: list[Part] = []
    reasoning = as_text(data.get("reasoningText")).strip()
    if reasoning and reasoning != thought:
        parts.append(Part("thinking", reasoning))
    text = as_text(data.get("content"))
    if text.strip():
        parts.append(Part("text", text))
    for request in _dicts(data.get("toolRequests")):
        meta = {k: request[k] for k in ("intentionSummary", "toolTitle", "type")
                if isinstance(request.get(k), str)}
        parts.append(Part("tool_use", _arguments(request.get("arguments")),
                          tool_name=as_text(request.get("name")) or None,
                          tool_use_id=as_text(request.get("toolCallId")) or None, meta=meta))
    return parts


def user_tool_parts(data: dict[str, Any]) -> list[Part]:
    """A tool the person ran themselves (``tool.user_requested``): the call it stands for."""
    return [Part("tool_use", _arguments(data.get("arguments")),
                 tool_name=as_text(data.get("toolName")) or None,
                 tool_use_id=as_text(data.get("toolCallId")) or None,
                 meta={"user_requested": True})]


def result_part(data: dict[str, Any], tool_name: str | None) -> Part:
    """One call's result: the text the model was given, or the error when it failed."""
    result = as_dict(data.get("result"))
    error = data.get("error")
    failed = data.get("success") is False or error is not None
    if isinstance(error, dict):
        text = as_text(error.get("message")) or as_text(error)
    elif error is not None:
        text = as_text(error)
    else:
        text = as_text(result.get("content"))
    meta: dict[str, Any] = {}
    detailed = result.get("detailedContent")
    if isinstance(detailed, str) and detailed.strip() and detailed != text:
        meta["detail"] = detailed
    for key in ("fileEdits", "shellExecution"):
        if data.get(key) is not None:
            meta[key] = data[key]
    return Part("tool_result", text, tool_name=tool_name,
                tool_use_id=as_text(data.get("toolCallId")) or None, is_error=failed, meta=meta)


def notice(kind: str, data: dict[str, Any]) -> tuple[Role, str] | None:
    """What an error, an abort or a hand-over says, as a line of the conversation."""
    if kind == "session.error":
        return "system", f"[Error: {as_text(data.get('message')).strip() or data.get('errorType')}]"
    if kind == "abort":
        return "system", f"[Aborted: {as_text(data.get('reason')) or 'no reason given'}]"
    if kind == "session.handoff" and as_text(data.get("summary")).strip():
        return "system", as_text(data.get("summary"))
    return None


def usage(data: dict[str, Any]) -> Usage | None:
    """The tokens of one model call (``session.usage_record``)."""
    raw = data.get("usage")
    if not isinstance(raw, dict):
        return None

    def n(key: str) -> int | None:
        value = raw.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return Usage(n("inputTokens"), n("outputTokens"), n("cacheReadTokens") or None,
                 n("cacheWriteTokens") or None)


def _arguments(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value if value is not None else {}, ensure_ascii=False, default=str)


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
