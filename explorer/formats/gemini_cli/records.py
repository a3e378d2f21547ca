"""One Gemini CLI message record as up to three messages of the tree.

A ``gemini`` record holds the model's thoughts and text, and the tool calls it
made *with their results inside them*. The tree keeps a call and its result
apart (P1 needs to see a result answer its call), so a record becomes: its
text and thoughts (key = the record id), its calls (``<id>:calls``) and their
results (``<id>:results``). The recorder writes a record again when its calls
finish; those later keys are new, so a sync that sees the second copy adds the
calls without touching the text already stored.
"""

from __future__ import annotations

import json
from typing import Any

from explorer.formats.common import as_text, parse_time
from explorer.tree.model import Message, Part, Role, Usage

_ROLES: dict[str, Role] = {"user": "user", "gemini": "assistant", "info": "system",
                           "error": "system", "warning": "system"}


def record_messages(record: dict[str, Any], parent: str | None, notes: list[str],
                    where: str) -> list[Message]:
    """The messages of one record, chained below ``parent``; [] for an unknown type."""
    kind = record.get("type")
    role = _ROLES.get(kind) if isinstance(kind, str) else None
    rid = as_text(record.get("id"))
    if role is None or not rid:
        return []
    when = parse_time(record.get("timestamp"))
    meta: dict[str, Any] = {"gemini_type": kind}
    display = record.get("displayContent")
    if display is not None:
        meta["display"] = _text(display)
    parts = [Part("thinking", _thought(t)) for t in _dicts(record.get("thoughts"))]
    text = _text(record.get("content"))
    if text:
        parts.append(Part("text", text))
    model = record.get("model") if isinstance(record.get("model"), str) else None
    out: list[Message] = []
    if parts or not record.get("toolCalls"):
        out.append(Message(rid, parent, role, parts, when, model, _usage(record.get("tokens")),
                           source_id=rid, source_meta=meta))
    calls = _dicts(record.get("toolCalls"))
    if calls and role == "assistant":
        above = out[-1].id if out else parent
        uses = [_use(c, i, rid) for i, c in enumerate(calls)]
        results = [_result(c, use.tool_use_id) for c, use in zip(calls, uses, strict=True)]
        out.append(Message(f"{rid}:calls", above, "assistant", uses, when, model,
                           source_id=f"{rid}:calls", source_meta={"gemini_type": kind}))
        out.append(Message(f"{rid}:results", f"{rid}:calls", "tool", results, when,
                           source_id=f"{rid}:results", source_meta={"gemini_type": "tool"}))
    elif calls:
        notes.append(f"{where}: tool calls on a {kind!r} record skipped")
    return out


def tool_responses(record: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The ``functionResponse`` parts of a user record that holds nothing else (empty text
    aside), or None for a record a person wrote.

    Gemini CLI records the tool results it sends back as a ``user`` record of their own,
    "to ensure durable ID and linear history for resume"; the same results are already in
    the calls' record (``toolCalls[].result``), so such a record is the turn's tool output,
    never a prompt (an empty one opened a turn with no prompt)."""
    if record.get("type") != "user":
        return None
    content = record.get("content")
    items = content if isinstance(content, list) else [content]
    responses: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("functionResponse"), dict):
            responses.append(item["functionResponse"])
        elif as_text(item.get("text") if isinstance(item, dict) else item).strip():
            return None
    return responses


def response_messages(record: dict[str, Any], parent: str | None,
                      answered: set[str]) -> list[Message]:
    """A tool-response record as the results it carries that no call's record answered yet
    (usually none: it folds into the turn), keyed by the record's id."""
    rid = as_text(record.get("id"))
    parts = []
    for n, response in enumerate(tool_responses(record) or []):
        cid = as_text(response.get("id")) or f"{rid}#{n}"
        if cid in answered:
            continue
        text, failed = response_body_text(response.get("response"))
        parts.append(Part("tool_result", text, tool_name=as_text(response.get("name")) or None,
                          tool_use_id=cid, is_error=failed))
    if not parts or not rid:
        return []
    return [Message(rid, parent, "tool", parts, parse_time(record.get("timestamp")),
                    source_id=rid, source_meta={"gemini_type": "tool_response"})]


def response_body_text(body: object) -> tuple[str, bool]:
    """The text of a ``functionResponse.response`` and whether it reports a failure.

    Gemini CLI and its forks (Qwen Code) wrap what a tool returned as ``{"output": ...}`` or
    ``{"error": ...}``; anything else is shown as it is."""
    if isinstance(body, dict):
        return as_text(body.get("output", body.get("error", body))), "error" in body
    return as_text(body), False


def _use(call: dict[str, Any], index: int, rid: str) -> Part:
    cid = as_text(call.get("id")) or f"{rid}#{index}"
    keys = ("displayName", "description", "timestamp")
    meta: dict[str, Any] = {k: call[k] for k in keys if k in call}
    return Part("tool_use", json.dumps(call.get("args", {}), ensure_ascii=False, default=str),
                tool_name=as_text(call.get("name")) or None, tool_use_id=cid, meta=meta)


def _result(call: dict[str, Any], use_id: str | None) -> Part:
    status = call.get("status")
    texts: list[str] = []
    failed = status not in (None, "success")
    for item in _dicts(call.get("result")):
        response = item.get("functionResponse")
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            failed = failed or "error" in body
            texts.append(as_text(body.get("output", body.get("error", body))))
        elif "text" in item:
            texts.append(as_text(item["text"]))
    if not texts:
        display = call.get("resultDisplay")
        texts.append(display if isinstance(display, str) else f"[no result: {status or 'none'}]")
    meta: dict[str, Any] = {"status": status}
    if isinstance(call.get("resultDisplay"), str):
        meta["display"] = call["resultDisplay"]
    return Part("tool_result", "\n".join(texts), tool_name=as_text(call.get("name")) or None,
                tool_use_id=use_id, is_error=failed, meta=meta)


def _thought(t: dict[str, Any]) -> str:
    subject, body = as_text(t.get("subject")).strip(), as_text(t.get("description")).strip()
    return f"**{subject}**\n{body}" if subject else body


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(as_text(p.get("text")) for p in _dicts(content) if "text" in p)
    return as_text(content)


def _usage(tokens: Any) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    n = {k: v for k, v in tokens.items() if isinstance(v, int) and not isinstance(v, bool)}
    if not n:
        return None
    cached = n.get("cached", 0)
    output = n.get("output", 0) + n.get("thoughts", 0)
    return Usage(max(0, n.get("input", 0) - cached), output, cached or None)


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
