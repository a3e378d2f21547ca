"""One Qwen Code record as a message: roles by record type, Gemini ``Content`` parts as ours.

Qwen Code keeps the model's wire shape in each record's ``message``: ``{role, parts}`` with
``text`` (``thought: true`` for thinking), ``functionCall``, ``functionResponse`` and
``inlineData`` parts. A ``tool_result`` record also carries ``toolCallResult``: the call's
status and what the terminal showed (``resultDisplay``), kept beside the result.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from explorer.formats.common import as_text, image_part, parse_time
from explorer.formats.gemini_cli.records import response_body_text
from explorer.tree.model import Message, Part, Role, Usage

_USER_ROLES: dict[str | None, Role] = {
    None: "user", "mid_turn_user_message": "user", "realtime_message": "user", "cron": "user",
    "notification": "system", "goal_runtime": "system",
}
"""A ``user`` record's role by its ``subtype``: a person's words, or the program's."""


def record_role(record: dict[str, Any]) -> Role | None:
    """The role of a message record, or None for a record that is not a message."""
    kind, subtype = record.get("type"), record.get("subtype")
    if kind == "user":
        return _USER_ROLES.get(subtype if isinstance(subtype, str) else None)
    if kind == "assistant":
        return "assistant"
    if kind == "tool_result":
        return "tool"
    return None


def record_message(record: dict[str, Any], parent: str | None, role: Role, where: str,
                   notes: list[str], ignored: Counter[str]) -> Message:
    """The message of one record (``uuid`` its id), under ``parent``."""
    uid = as_text(record.get("uuid"))
    body = record.get("message")
    raw_parts = body.get("parts") if isinstance(body, dict) else None
    parts = _parts(raw_parts if isinstance(raw_parts, list) else [], where, notes, ignored)
    meta: dict[str, Any] = {"qwen_type": record.get("type")}
    for key in ("subtype", "provenance"):
        if isinstance(record.get(key), str):
            meta[f"qwen_{key}"] = record[key]
    payload = record.get("systemPayload")
    if isinstance(payload, dict) and isinstance(payload.get("displayText"), str):
        meta["display"] = payload["displayText"]
    if role == "tool":
        _with_status(parts, record.get("toolCallResult"))
    model = record.get("model") if isinstance(record.get("model"), str) else None
    return Message(uid, parent, role, parts, parse_time(record.get("timestamp")), model,
                   _usage(record.get("usageMetadata")), source_id=uid, source_meta=meta)


def _parts(raw: list[Any], where: str, notes: list[str], ignored: Counter[str]) -> list[Part]:
    parts: list[Part] = []
    for item in raw:
        if not isinstance(item, dict):
            ignored[f"part:<{type(item).__name__}>"] += 1
            continue
        if "functionCall" in item and isinstance(item["functionCall"], dict):
            call = item["functionCall"]
            parts.append(Part("tool_use", json.dumps(call.get("args", {}), ensure_ascii=False,
                                                     default=str),
                              tool_name=as_text(call.get("name")) or None,
                              tool_use_id=as_text(call.get("id")) or None))
        elif "functionResponse" in item and isinstance(item["functionResponse"], dict):
            response = item["functionResponse"]
            text, failed = response_body_text(response.get("response"))
            parts.append(Part("tool_result", text, tool_name=as_text(response.get("name")) or None,
                              tool_use_id=as_text(response.get("id")) or None, is_error=failed))
        elif "text" in item:
            thought = item.get("thought") is True
            parts.append(Part("thinking" if thought else "text", as_text(item["text"])))
        elif isinstance(item.get("inlineData"), dict):
            data = item["inlineData"]
            parts.append(image_part(data.get("data"), data.get("mimeType"), notes, where))
        else:
            kind = next(iter(item), "<empty>")
            ignored[f"part:{kind}"] += 1
            notes.append(f"{where}: a {kind!r} part skipped")
    return parts


def _with_status(parts: list[Part], result: object) -> None:
    """A result the call's status calls failed is an error; what the terminal showed is kept."""
    if not isinstance(result, dict):
        return
    status = result.get("status")
    display = result.get("resultDisplay")
    for part in parts:
        if part.kind != "tool_result" or part.tool_use_id != as_text(result.get("callId")):
            continue
        part.is_error = part.is_error or status not in (None, "success")
        part.meta["status"] = status
        if isinstance(display, str) and display:
            part.meta["display"] = display
        elif isinstance(display, dict) and isinstance(display.get("fileDiff"), str):
            part.meta["diff"] = display["fileDiff"]


def _usage(tokens: Any) -> Usage | None:
    """Gemini's ``usageMetadata`` counts: the prompt includes the cached part, thoughts are
    output."""
    if not isinstance(tokens, dict):
        return None
    n = {k: v for k, v in tokens.items() if isinstance(v, int) and not isinstance(v, bool)}
    if not n:
        return None
    cached = n.get("cachedContentTokenCount", 0)
    output = n.get("candidatesTokenCount", 0) + n.get("thoughtsTokenCount", 0)
    return Usage(max(0, n.get("promptTokenCount", 0) - cached), output, cached or None)
