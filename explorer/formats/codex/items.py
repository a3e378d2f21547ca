"""One Codex ``response_item`` payload as the parts of one message.

Codex writes every item the model saw or produced on its own line: messages,
reasoning, function calls and their outputs. Each item becomes one message,
so a line appended later never has to change a message already stored.
Context Codex injects as a user message (environment, AGENTS.md, permission
instructions) is not something the person typed: it becomes a ``system``
message that remembers the role Codex gave it.
"""

from __future__ import annotations

import json
from typing import Any

from explorer.formats.common import as_text, image_part
from explorer.tree.model import Part, Role

_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
             "<permissions instructions>", "<user_shell_command>", "<turn_aborted>",
             "<collaboration_mode>", "<skills_instructions>")


def item_role(payload: dict[str, Any]) -> tuple[Role, str] | None:
    """(our role, Codex's name for it) of a response item, or None when unknown."""
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        if role == "assistant":
            return "assistant", "assistant"
        if role == "user":
            return ("system" if _injected(payload) else "user"), "user"
        if role in ("developer", "system"):
            return "system", str(role)
        return None
    if kind in ("reasoning", "function_call", "custom_tool_call", "local_shell_call",
                "web_search_call", "tool_search_call"):
        return "assistant", str(kind)
    if kind in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
        return "tool", str(kind)
    return None


def _injected(payload: dict[str, Any]) -> bool:
    text = _content_text(payload.get("content")).lstrip()
    return text.startswith(_INJECTED)


def item_parts(payload: dict[str, Any], notes: list[str], where: str) -> list[Part]:
    kind = payload.get("type")
    if kind == "message":
        return _message_parts(payload.get("content"), notes, where)
    if kind == "reasoning":
        return [_reasoning(payload)]
    if kind == "function_call":
        return [Part("tool_use", as_text(payload.get("arguments")), tool_name=_str(payload, "name"),
                     tool_use_id=_str(payload, "call_id"), meta=_keep(payload, "namespace"))]
    if kind == "custom_tool_call":
        meta = {"custom": True, **_keep(payload, "status")}
        return [Part("tool_use", as_text(payload.get("input")), tool_name=_str(payload, "name"),
                     tool_use_id=_str(payload, "call_id"), meta=meta)]
    if kind == "local_shell_call":
        return [Part("tool_use", as_text(payload.get("action")), tool_name="local_shell",
                     tool_use_id=_str(payload, "call_id") or _str(payload, "id"),
                     meta=_keep(payload, "status"))]
    if kind in ("web_search_call", "tool_search_call"):
        # Codex runs these itself and keeps no result: no id, so nothing waits for one (P1).
        name = "web_search" if kind == "web_search_call" else "tool_search"
        body = payload.get("action", payload.get("arguments"))
        return [Part("tool_use", as_text(body), tool_name=name,
                     meta={"codex_call_id": payload.get("id") or payload.get("call_id"),
                           **_keep(payload, "status")})]
    return [_output(payload, notes, where)]


def _message_parts(content: Any, notes: list[str], where: str) -> list[Part]:
    if isinstance(content, str):
        return [Part("text", content)]
    parts: list[Part] = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in ("input_text", "output_text", "text", "refusal"):
            text = block.get("text", block.get("refusal"))
            parts.append(Part("text", as_text(text), meta={"codex_type": kind}))
        elif kind == "input_image":
            parts.append(_image(block.get("image_url"), notes, where))
        else:
            notes.append(f"{where}: content block of type {kind!r} skipped")
    return parts


def _image(url: object, notes: list[str], where: str) -> Part:
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        head, data = url.split(";base64,", 1)
        return image_part(data, head[5:], notes, where)
    return Part("text", f"[image: {as_text(url)[:200]}]", meta={"codex_type": "input_image"})


def _reasoning(payload: dict[str, Any]) -> Part:
    texts = [as_text(s.get("text")) for s in _dicts(payload.get("summary"))]
    texts += [as_text(c.get("text")) for c in _dicts(payload.get("content"))]
    meta: dict[str, Any] = {}
    if isinstance(payload.get("encrypted_content"), str):
        meta["encrypted_content"] = payload["encrypted_content"]
    if isinstance(payload.get("summary"), list):
        meta["summary_items"] = len(payload["summary"])
    return Part("thinking", "\n\n".join(t for t in texts if t), meta=meta)


def _output(payload: dict[str, Any], notes: list[str], where: str) -> Part:
    raw = payload.get("output")
    is_error = False
    if isinstance(raw, dict):  # {"content": ..., "success": bool} in some versions
        is_error = raw.get("success") is False
        raw = raw.get("content", raw.get("output", raw))
    if isinstance(raw, list):
        text = "\n".join(as_text(b.get("text")) for b in _dicts(raw) if "text" in b)
    else:
        text = as_text(raw)
    meta = {"codex_type": payload.get("type")}
    return Part("tool_result", text, tool_use_id=_str(payload, "call_id"), is_error=is_error,
                meta=meta)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(as_text(b.get("text")) for b in _dicts(content))


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _str(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value else None


def _keep(payload: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: payload[k] for k in keys if k in payload}


def arguments_json(text: str) -> Any:
    """Arguments as JSON when they parse, else the text (for the exporter)."""
    try:
        return json.loads(text)
    except ValueError:
        return text
