"""An OpenCode session (its info, messages and their parts) as one conversation.

OpenCode's assistant messages all name the user message they answer as
``parentID``, so its "tree" is a fan of siblings; the conversation is really
the messages in time order, and that is how they chain here (``parentID`` is
kept as metadata). Inside an assistant message the parts run in order:
reasoning, text, tool calls (each holding its own result), step markers. The
tree keeps a call apart from its result (P1), so a message is split after each
run of tool calls: ``<id>`` (what came first, with the calls), ``<id>:r1`` (the
results), ``<id>:s1`` (what followed), and so on.

A user message holding a ``compaction`` part asks for a summary; the assistant
message that answers it (``summary: true``) is the summary, kept as a
compaction record on the message before the request, and where the context
restarts.
"""

from __future__ import annotations

import json
from typing import Any

from explorer.formats.base import ImportedCompaction, ImportedConversation
from explorer.formats.common import as_text, finish, image_part, parse_time, preview_title
from explorer.tree.model import Message, Part, Role, Usage

FORMAT = "opencode"
_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant"}
_KEPT = ("parentID", "providerID", "mode", "agent", "finish", "cost", "error", "summary")


def conversation(info: dict[str, Any], messages: list[tuple[dict[str, Any], list[Any]]],
                 source: str, notes: list[str]) -> ImportedConversation:
    conv = ImportedConversation(title="", source_format=FORMAT, messages=[], source_path=source,
                                notes=notes)
    conv.source_id = as_text(info.get("id")) or None
    times = _dict(info.get("time"))
    conv.created_at = parse_time(times.get("created"))
    meta = conv.meta
    meta["agent"] = FORMAT
    for ours, theirs in (("cwd", "directory"), ("version", "version"), ("slug", "slug"),
                         ("project_id", "projectID"), ("parent_session", "parentID")):
        if isinstance(info.get(theirs), str):
            meta[ours] = info[theirs]
    builder = _Builder(conv)
    for minfo, parts in messages:
        builder.message(minfo, [p for p in parts if isinstance(p, dict)])
    if not meta.get("cwd") and builder.cwd:
        meta["cwd"] = builder.cwd
    title = info.get("title")
    conv.title = title.strip()[:120] if isinstance(title, str) and title.strip() else (
        preview_title(conv.messages, conv.source_id or "OpenCode session"))
    return finish(conv, conv.messages[-1].id if conv.messages else None)


class _Builder:
    def __init__(self, conv: ImportedConversation) -> None:
        self.conv = conv
        self.last: str | None = None
        self.cwd: str | None = None
        self.compact_anchor: str | None = None

    def message(self, info: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        mid, role_name = as_text(info.get("id")), info.get("role")
        role = _ROLES.get(role_name) if isinstance(role_name, str) else None
        if not mid or role is None:
            self.conv.ignored_records[f"message:{role_name}"] += 1
            self.conv.notes.append(f"message {mid or '?'}: role {role_name!r} unknown; skipped")
            return
        path = info.get("path")
        if isinstance(path, dict) and isinstance(path.get("cwd"), str):
            self.cwd = self.cwd or path["cwd"]
        if any(p.get("type") == "compaction" for p in parts):
            self.compact_anchor = self.last
        segments = self._segments(role, parts, mid)
        times = _dict(info.get("time"))
        when = parse_time(times.get("created"))
        model = info.get("modelID") if isinstance(info.get("modelID"), str) else None
        meta: dict[str, Any] = {k: info[k] for k in _KEPT if k in info}
        first_id = None
        counts = {"r": 0, "s": 0}
        for n, (seg_role, seg_parts) in enumerate(segments):
            tag = "r" if seg_role == "tool" else "s"
            counts[tag] += n > 0
            key = mid if n == 0 else f"{mid}:{tag}{counts[tag]}"
            if seg_role == "user" and role == "user" and not _spoken(seg_parts):
                seg_role = "system"
            m = Message(key, self.last, seg_role, seg_parts, when,
                        model if seg_role == "assistant" else None,
                        _usage(info.get("tokens")) if n == 0 and role == "assistant" else None,
                        source_id=key, source_meta=dict(meta) if n == 0 else {})
            self.conv.messages.append(m)
            self.last = key
            first_id = first_id or key
        if info.get("summary") is True and role == "assistant" and first_id:
            self._summary(first_id)

    def _summary(self, key: str) -> None:
        anchor = self.compact_anchor
        if anchor is None:
            self.conv.notes.append(f"summary {key}: no message before it; kept as a message")
            return
        text = "\n".join(m.text for m in self.conv.messages if m.id == key)
        self.conv.compactions.append(ImportedCompaction(anchor, "summary", text,
                                                        {"origin": FORMAT, "message": key}))
        self.conv.context_start = key
        self.compact_anchor = None

    def _segments(self, role: Role, parts: list[dict[str, Any]],
                  mid: str) -> list[tuple[Role, list[Part]]]:
        out: list[tuple[Role, list[Part]]] = [(role, [])]
        results: list[Part] = []
        for raw in parts:
            kind = raw.get("type")
            if kind == "tool":
                use, result = _tool(raw)
                out[-1][1].append(use)
                if result is not None:
                    results.append(result)
                continue
            part = self._part(raw, mid)
            if part is None:
                continue
            if results:
                out += [("tool", results), (role, [])]
                results = []
            out[-1][1].append(part)
        if results:
            out.append(("tool", results))
        return [s for s in out if s[1]] or [(role, [])]

    def _part(self, raw: dict[str, Any], mid: str) -> Part | None:
        kind = raw.get("type")
        meta = {"synthetic": True} if raw.get("synthetic") is True else {}
        if kind == "text":
            return Part("text", as_text(raw.get("text")), meta=meta)
        if kind == "reasoning":
            return Part("thinking", as_text(raw.get("text")))
        if kind == "file":
            url, mime = as_text(raw.get("url")), as_text(raw.get("mime"))
            if url.startswith("data:image/") and ";base64," in url:
                return image_part(url.split(";base64,", 1)[1], mime, self.conv.notes, mid)
            return Part("text", f"[file: {as_text(raw.get('filename')) or url}]",
                        meta={"opencode": "file", "url": url, "mime": mime})
        if kind == "agent":
            return Part("text", f"@{as_text(raw.get('name'))}", meta={"opencode": "agent"})
        if kind == "compaction":
            return Part("text", "[compaction requested]", meta={"opencode": "compaction",
                                                               "auto": raw.get("auto")})
        self.conv.ignored_records[f"part:{kind}"] += 1  # step markers, patches, snapshots
        return None


def _spoken(parts: list[Part]) -> bool:
    """True when a person wrote some of it (not only a compaction request or synthetic text)."""
    return any(p.kind != "text" or (not p.meta.get("synthetic") and p.meta.get("opencode")
                                    != "compaction") for p in parts)


def _tool(raw: dict[str, Any]) -> tuple[Part, Part | None]:
    state = _dict(raw.get("state"))
    call_id = as_text(raw.get("callID")) or as_text(raw.get("id")) or None
    name = as_text(raw.get("tool")) or None
    use = Part("tool_use", json.dumps(state.get("input", {}), ensure_ascii=False, default=str),
               tool_name=name, tool_use_id=call_id, meta={"title": state.get("title")}
               if state.get("title") else {})
    status = state.get("status")
    if status == "completed":
        return use, Part("tool_result", as_text(state.get("output")), tool_name=name,
                         tool_use_id=call_id)
    if status == "error":
        return use, Part("tool_result", as_text(state.get("error")), tool_name=name,
                         tool_use_id=call_id, is_error=True)
    return use, None  # pending or running: the call still waits (P3 marks the session)


def _usage(tokens: Any) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    cache = _dict(tokens.get("cache"))

    def n(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return Usage(n(tokens.get("input")), n(tokens.get("output")), n(cache.get("read")),
                 n(cache.get("write")))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
