"""One Open WebUI message's content turned into ordered parts.

Older versions render reasoning and tool calls into the content string as
``<details type="reasoning">`` / ``<details type="tool_calls" name=… arguments=…
result=…>`` blocks with HTML-escaped attributes; newer ones also keep the
structured ``output[]`` list they were rendered from, which is preferred when
present. Anything unrecognised is kept as text, never dropped.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
from typing import Any, cast

from explorer.tree.model import Part

_DETAILS = re.compile(r"<details\b([^>]*)>(.*?)</details>[ \t]*\n?", re.S)
_ATTR = re.compile(r'([\w-]+)="([^"]*)"')
_SUMMARY = re.compile(r"^\s*<summary>.*?</summary>", re.S)
_QUOTE = re.compile(r"^> ?", re.M)
_DATA_URL = re.compile(r"^data:(image/[\w.+-]+);base64,(.*)$", re.S)


def obj(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (damaged input)."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def text_of(value: object) -> str:
    return value if isinstance(value, str) else ""


def content_parts(content: object, key: str) -> list[Part]:
    """Parts of a ``content`` string (details blocks parsed) or a content list."""
    if isinstance(content, list):
        return [p for item in content for p in _content_item(item)]
    text = text_of(content)
    parts: list[Part] = []
    pos = 0
    for n, m in enumerate(_DETAILS.finditer(text)):
        _add_text(parts, text[pos : m.start()])
        parts.extend(_details(m.group(1), m.group(2), f"{key}-call-{n}", m.group(0)))
        pos = m.end()
    _add_text(parts, text[pos:])
    return parts


def _add_text(parts: list[Part], text: str) -> None:
    if text.strip():
        parts.append(Part("text", text.strip("\n")))


def _attrs(raw: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in _ATTR.findall(raw)}


def _details(raw_attrs: str, body: str, fallback_id: str, block: str) -> list[Part]:
    attrs = _attrs(raw_attrs)
    inner = html.unescape(_SUMMARY.sub("", body, count=1)).strip()
    kind = attrs.get("type", "")
    if kind == "reasoning":
        meta: dict[str, Any] = {k: attrs[k] for k in ("duration", "done") if k in attrs}
        return [Part("thinking", _QUOTE.sub("", inner), meta=meta)]
    if kind == "tool_calls":
        return _tool_call(attrs, inner, fallback_id)
    if kind == "code_interpreter":
        call_id = attrs.get("id") or fallback_id
        use = Part("tool_use", json.dumps({"code": inner}), tool_name=kind, tool_use_id=call_id)
        if "output" not in attrs:
            return [use]
        return [
            use,
            Part("tool_result", _decoded(attrs["output"]), tool_name=kind, tool_use_id=call_id),
        ]
    return [Part("text", block.strip("\n"), meta={"details_type": kind or "none"})]


def _tool_call(attrs: dict[str, str], inner: str, fallback_id: str) -> list[Part]:
    call_id = attrs.get("id") or fallback_id
    name = attrs.get("name") or "unknown"
    meta: dict[str, Any] = {} if "name" in attrs else {"name_missing": True}
    use = Part("tool_use", _arguments(attrs.get("arguments")), tool_name=name, tool_use_id=call_id)
    use.meta.update(meta)
    if "result" in attrs:
        result = _decoded(attrs["result"])
    elif inner:
        result = _decoded(inner)
    else:
        return [use]
    return [use, Part("tool_result", result, tool_name=name, tool_use_id=call_id)]


def _arguments(raw: str | None) -> str:
    """Arguments as a JSON text; the attribute often holds a JSON-encoded JSON string."""
    if not raw:
        return "{}"
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _decoded(raw: str) -> str:
    """A result attribute is ``json.dumps`` of the output; undo it when it is a string."""
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _content_item(item: object) -> list[Part]:
    d = obj(item)
    kind = text_of(d.get("type"))
    if kind in ("text", "input_text", "output_text"):
        return [Part("text", text_of(d.get("text")))]
    if kind == "image_url":
        url = text_of(obj(d.get("image_url")).get("url")) or text_of(d.get("image_url"))
        return [image_part(url, {})]
    return [Part("text", json.dumps(item, ensure_ascii=False), meta={"unknown_content": kind})]


def image_part(url: str, meta: dict[str, Any]) -> Part:
    """An image part for an inline data URL; a marker when the bytes are elsewhere."""
    m = _DATA_URL.match(url)
    if m:
        try:
            data = base64.b64decode(m.group(2), validate=False)
            return Part("image", data=data, media_type=m.group(1), meta=meta)
        except (binascii.Error, ValueError):
            meta = {**meta, "bad_base64": True}
    shown = url if len(url) < 200 else url[:200] + "…"
    return Part("text", f"[image not in the export: {shown}]", meta={**meta, "missing_image": True})


def output_parts(items: list[Any], key: str) -> list[Part]:
    """Parts from the structured ``output[]`` list of newer versions."""
    parts: list[Part] = []
    for n, item in enumerate(items):
        d = obj(item)
        kind = text_of(d.get("type"))
        if kind == "message":
            parts.extend(p for p in _texts(d.get("content"), "text") if p.text)
        elif kind == "reasoning":
            thought = _texts(d.get("content"), "thinking") or _texts(d.get("summary"), "thinking")
            text = "\n".join(p.text for p in thought)
            meta = {"duration": d["duration"]} if d.get("duration") is not None else {}
            parts.append(Part("thinking", text, meta=meta))
        elif kind == "function_call":
            call_id = text_of(d.get("call_id")) or text_of(d.get("id")) or f"{key}-call-{n}"
            name = text_of(d.get("name")) or "unknown"
            arguments = d.get("arguments")
            args = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
            parts.append(Part("tool_use", args, tool_name=name, tool_use_id=call_id))
        elif kind == "function_call_output":
            call_id = text_of(d.get("call_id")) or f"{key}-call-{n}"
            out = d.get("output")
            text = out if isinstance(out, str) else "\n".join(p.text for p in _texts(out, "text"))
            parts.append(Part("tool_result", text, tool_use_id=call_id))
        else:
            raw = json.dumps(item, ensure_ascii=False)
            parts.append(Part("text", raw, meta={"unknown_output_type": kind or "none"}))
    return _name_results(parts)


def _texts(value: object, kind: str) -> list[Part]:
    items = value if isinstance(value, list) else []
    texts = (text_of(obj(i).get("text")) for i in items)
    return [Part("thinking" if kind == "thinking" else "text", t) for t in texts]


def _name_results(parts: list[Part]) -> list[Part]:
    names = {p.tool_use_id: p.tool_name for p in parts if p.kind == "tool_use"}
    for p in parts:
        if p.kind == "tool_result" and p.tool_name is None:
            p.tool_name = names.get(p.tool_use_id)
    return parts
