"""One ChatGPT message's ``content`` turned into ordered parts.

ChatGPT keeps one kind of content per message (``content_type``); tool calls
are messages addressed to a tool (``recipient``) and tool output comes back as
``tool``-role messages. Tool results are produced here without a call id: the
conversation knows the tree and links each result to the call before it.
Content we do not know is kept as its raw JSON, never dropped.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, cast

from explorer.formats.base import FormatError
from explorer.formats.chatgpt.assets import Images, media_type
from explorer.tree.model import Part, Role

_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant"}
_SYSTEM_TYPES = ("user_editable_context", "model_editable_context")
_KEPT_METADATA = (
    "finish_details",
    "attachments",
    "request_id",
    "message_type",
    "is_user_system_message",
    "voice_mode_message",
    "reasoning_status",
)


@dataclass
class Converted:
    """A message's role, parts and the source fields worth keeping."""

    role: Role
    parts: list[Part]
    created_at: float | None
    model: str | None
    meta: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def obj(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (damaged input)."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def text_of(value: object) -> str:
    return value if isinstance(value, str) else ""


def epoch(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) else None


def convert_message(key: str, msg: dict[str, Any], images: Images) -> Converted:
    """Role and parts for one ``mapping[key]["message"]``."""
    author = obj(msg.get("author"))
    content = obj(msg.get("content"))
    metadata = obj(msg.get("metadata"))
    ctype = text_of(content.get("content_type")) or "missing"
    source_role = text_of(author.get("role"))
    recipient = text_of(msg.get("recipient")) or "all"
    out = Converted(
        role=_ROLES.get(source_role, "assistant"),
        parts=[],
        created_at=epoch(msg.get("create_time")),
        model=text_of(metadata.get("model_slug")) or None,
    )
    _describe(out, msg, author, metadata, ctype, recipient)
    body = _body_parts(content, ctype, images, out.notes, key)
    if ctype in _SYSTEM_TYPES:
        out.role = "system"
        out.parts = body
    elif source_role == "tool":
        out.role = "tool"
        out.parts = _as_result(body, text_of(author.get("name")) or None, ctype)
    elif recipient != "all" and source_role == "assistant":
        out.parts = [_as_call(key, body, recipient, content)]
    else:
        out.parts = body
    return out


def _describe(
    out: Converted,
    msg: dict[str, Any],
    author: dict[str, Any],
    metadata: dict[str, Any],
    ctype: str,
    recipient: str,
) -> None:
    meta = out.meta
    meta["content_type"] = ctype
    if text_of(author.get("role")) not in ("system", "user", "assistant"):
        meta["author_role"] = author.get("role")
    if author.get("name"):
        meta["author_name"] = author.get("name")
    if recipient != "all":
        meta["recipient"] = recipient
    status = msg.get("status")
    if status is not None and status != "finished_successfully":
        meta["status"] = status
    if status == "in_progress":
        meta["in_progress"] = True
    if metadata.get("is_visually_hidden_from_conversation"):
        meta["hidden"] = True
    for name in ("end_turn", "weight", "channel"):
        if msg.get(name) is not None:
            meta[name] = msg[name]
    if msg.get("update_time") is not None:
        meta["update_time"] = msg["update_time"]
    for name in _KEPT_METADATA:
        if metadata.get(name) not in (None, [], {}):
            meta[name] = metadata[name]


def _body_parts(
    content: dict[str, Any], ctype: str, images: Images, notes: list[str], key: str
) -> list[Part]:
    """The typed field first, then ``parts`` (where newer exports keep every type's
    body); content that is there but cannot be read is kept as raw JSON, with a note."""
    if ctype in ("text", "multimodal_text"):
        return _from_parts(content, images, notes)
    known = ctype in _TYPED
    body = _typed_parts(content, ctype) if known else []
    if _has_content(body):
        return body
    fallback = _from_parts(content, images, notes)
    if _has_content(fallback):
        return [_as_kind(p, ctype, known) for p in fallback]
    if _meaningful({k: v for k, v in content.items() if k != "content_type"}):
        if known:
            notes.append(f"message {key}: {ctype} content has no text this program can read; "
                         "kept its raw JSON")
        label = "unreadable_content_type" if known else "unknown_content_type"
        return [_unknown(content, label, ctype)]
    return body


def _from_parts(content: dict[str, Any], images: Images, notes: list[str]) -> list[Part]:
    parts = content.get("parts")
    items = parts if isinstance(parts, list) else []
    return [p for item in items for p in _item_parts(item, images, notes)]


_THINKING = ("thoughts", "reasoning_recap")
_TYPED = (
    "code", "execution_output", "thoughts", "reasoning_recap", "user_editable_context",
    "model_editable_context", "tether_browsing_display", "tether_quote", "system_error",
)


def _as_kind(p: Part, ctype: str, known: bool) -> Part:
    """A part read from ``parts`` as the content type would have given it."""
    if not known:
        p.meta.setdefault("unknown_content_type", ctype)
    elif p.kind == "text" and ctype == "thoughts":
        return Part("thinking", p.text, meta={"summary": "", **p.meta})
    elif p.kind == "text" and ctype == "reasoning_recap":
        return Part("thinking", p.text, meta={**p.meta, "recap": True})
    elif p.kind == "text" and ctype in ("tether_quote", "system_error"):
        p.meta[ctype] = True
    return p


def _has_content(parts: list[Part]) -> bool:
    return any(p.text.strip() or p.data for p in parts)


def _meaningful(value: object) -> bool:
    """Whether a JSON value holds anything a person could read (not just empty shells)."""
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, dict):
        return any(_meaningful(v) for v in value.values())
    if isinstance(value, list):
        return any(_meaningful(v) for v in value)
    return False


def _typed_parts(content: dict[str, Any], ctype: str) -> list[Part]:
    if ctype == "code":
        lang = text_of(content.get("language"))
        return [Part("text", text_of(content.get("text")), meta={"language": lang})]
    if ctype == "execution_output":
        return [Part("text", text_of(content.get("text")))]
    if ctype == "thoughts":
        return _thoughts(content)
    if ctype == "reasoning_recap":
        return [Part("thinking", text_of(content.get("content")), meta={"recap": True})]
    if ctype == "user_editable_context":
        texts = (text_of(content.get(k)) for k in ("user_profile", "user_instructions"))
        return [Part("text", t) for t in texts if t]
    if ctype == "model_editable_context":
        return [Part("text", text_of(content.get("model_set_context")))]
    if ctype == "tether_browsing_display":
        return [Part("text", text_of(content.get("result")) or text_of(content.get("summary")))]
    if ctype in ("tether_quote", "system_error"):
        return [Part("text", text_of(content.get("text")), meta={ctype: True})]
    return []


def _item_parts(item: object, images: Images, notes: list[str]) -> list[Part]:
    if isinstance(item, str):
        return [Part("text", item)] if item else []
    part = obj(item)
    kind = text_of(part.get("content_type"))
    if kind == "image_asset_pointer":
        return [_image(part, images, notes)]
    if kind == "audio_transcription":
        return [Part("text", text_of(part.get("text")), meta={"audio_transcription": True})]
    if not kind and part and (text_of(part.get("content")) or text_of(part.get("text"))):
        # a thought or quote kept as {summary, content} / {text} inside ``parts``
        meta = {"summary": text_of(part.get("summary"))} if "summary" in part else {}
        return [Part("text", text_of(part.get("content")) or text_of(part.get("text")), meta=meta)]
    return [_unknown(item, "unknown_part_type", kind or type(item).__name__)]


def _image(part: dict[str, Any], images: Images, notes: list[str]) -> Part:
    pointer = text_of(part.get("asset_pointer"))
    keep = ("asset_pointer", "width", "height", "size_bytes")
    meta: dict[str, Any] = {k: part[k] for k in keep if k in part}
    try:
        found = images.find(pointer) if pointer else None
    except FormatError as e:
        notes.append(f"image {pointer!r} not imported: {e}")
        found = None
    if found is None:
        meta["missing_image"] = True
        return Part("text", f"[image not in the export: {pointer or 'no pointer'}]", meta=meta)
    name, data = found
    meta["file_name"] = name
    return Part("image", data=data, media_type=media_type(name, data), meta=meta)


def _thoughts(content: dict[str, Any]) -> list[Part]:
    items = content.get("thoughts")
    out = []
    for t in items if isinstance(items, list) else []:
        thought = obj(t)
        summary = text_of(thought.get("summary"))
        out.append(Part("thinking", text_of(thought.get("content")), meta={"summary": summary}))
    return out


def _unknown(raw: object, key: str, kind: str) -> Part:
    return Part("text", json.dumps(raw, ensure_ascii=False), meta={key: kind})


def _as_call(key: str, body: list[Part], recipient: str, content: dict[str, Any]) -> Part:
    """A message addressed to a tool is a call; its code or text is the input."""
    code = "\n".join(p.text for p in body if p.kind == "text")
    try:
        parsed = json.loads(code)
    except ValueError:
        parsed = None
    arguments = code if isinstance(parsed, dict) else json.dumps({"code": code})
    meta: dict[str, Any] = {"content_type": text_of(content.get("content_type"))}
    if content.get("language"):
        meta["language"] = content["language"]
    return Part("tool_use", arguments, tool_name=recipient, tool_use_id=call_id(key), meta=meta)


def call_id(key: str) -> str:
    """The id a call and the results answering it share (from the call's message id)."""
    return f"chatgpt-call-{key}"


def _as_result(body: list[Part], tool: str | None, ctype: str) -> list[Part]:
    """Tool output: one result part (id linked later), images after it."""
    text = "\n".join(p.text for p in body if p.kind == "text")
    result = Part("tool_result", text, tool_name=tool, is_error=ctype == "system_error")
    kept_meta = [p.meta for p in body if p.kind == "text" and p.meta]
    if kept_meta:
        result.meta["source_parts"] = kept_meta
    return [result, *(p for p in body if p.kind != "text")]
