"""A path rewritten into steps the providers accept: every tool call answered right after it.

:func:`answered_steps` is shared by the request bodies and the agent session
exporters (Claude Code, pi): results are gathered after their call, a call with
no result gets a synthesized "interrupted" result, and a result answering no
call becomes text. Every change is reported in ``notes``.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from explorer.formats.exporters.inline_results import split_inline_results
from explorer.tree.model import Message, Part
from explorer.tree.paths import message_path

StepRole = Literal["system", "user", "assistant"]
OPENING = "(The conversation so far continues below.)"
INTERRUPTED = "Tool call was interrupted: no result was recorded for it."
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_NAME_OK = re.compile(r"[^a-zA-Z0-9_-]")


def active_path(messages: Sequence[Message], tip: Hashable | None) -> list[Message]:
    """The root-to-tip path; without a tip, the path to the last message."""
    if not messages:
        return []
    by_id = {m.id: m for m in messages}
    return message_path(by_id, tip if tip is not None else messages[-1].id)


@dataclass
class Step:
    """One message as a provider receives it; ``origin`` is the message it came from."""

    role: StepRole
    parts: list[Part]
    origin: Message
    results: bool = False


def answered_steps(path: Sequence[Message], notes: list[str]) -> list[Step]:
    """The path as steps in which every tool call is answered in the next step."""
    path = split_inline_results(path, notes)
    calls_at, answers_at = _index_calls(path)
    steps: list[Step] = []
    for j, m in enumerate(path):
        kept = _kept_parts(m, j, calls_at, answers_at, notes)
        role: StepRole = "user" if m.role == "tool" else m.role
        if kept:
            steps.append(Step(role, kept, m))
        calls = [p.tool_use_id for p in kept if p.kind == "tool_use" and p.tool_use_id]
        if calls:
            steps.append(_results_step(path, m, calls, answers_at, notes))
    return steps


def _index_calls(path: Sequence[Message]) -> tuple[dict[str, int], dict[str, int]]:
    """Where each call was made, and where its first answer after the call stands."""
    calls_at: dict[str, int] = {}
    answers_at: dict[str, int] = {}
    for j, m in enumerate(path):
        for p in m.parts:
            key = p.tool_use_id
            if key is None:
                continue
            if p.kind == "tool_use" and m.role == "assistant":
                calls_at.setdefault(key, j)
            elif p.kind == "tool_result" and calls_at.get(key, j) < j:
                answers_at.setdefault(key, j)
    return calls_at, answers_at


def _kept_parts(m: Message, j: int, calls_at: dict[str, int], answers_at: dict[str, int],
                notes: list[str]) -> list[Part]:
    kept: list[Part] = []
    called: set[str] = set()
    for p in m.parts:
        key = p.tool_use_id
        if p.kind == "tool_result":
            if key is None or answers_at.get(key) != j:
                notes.append(f"message {m.id}: result for {key} answers no call before it; "
                             "kept as text")
                kept.append(_as_text(p, f"[tool result for call {key}, whose call is not "
                                        "on this path]"))
        elif p.kind == "tool_use":
            if key is None or calls_at.get(key) != j or key in called or m.role != "assistant":
                notes.append(f"message {m.id}: tool call {key} cannot be answered here; "
                             "kept as text")
                kept.append(_as_text(p, f"[tool call {p.tool_name or 'tool'} {key}]"))
            else:
                called.add(key)
                kept.append(p)
        else:
            kept.append(p)
    return kept


def _results_step(path: Sequence[Message], caller: Message, calls: list[str],
                  answers_at: dict[str, int], notes: list[str]) -> Step:
    parts: list[Part] = []
    origin = caller
    for key in calls:
        j = answers_at.get(key)
        if j is None:
            notes.append(f"message {caller.id}: tool call {key} has no result on this path; "
                         "added an error result saying it was interrupted")
            parts.append(Part("tool_result", INTERRUPTED, tool_use_id=key, is_error=True,
                              meta={"synthesized": True}))
            continue
        origin = path[j] if origin is caller else origin
        parts.extend(p for p in path[j].parts if p.kind == "tool_result" and p.tool_use_id == key)
    return Step("user", parts, origin, results=True)


def _as_text(p: Part, label: str) -> Part:
    if p.data is not None:
        return Part("image", data=p.data, media_type=p.media_type, meta=p.meta)
    return Part("text", f"{label}\n{p.text}" if p.text else label)


def tool_arguments(text: str) -> dict[str, Any]:
    """Tool input as an object; anything else is wrapped so no argument is lost."""
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return {"input": text}
    return value if isinstance(value, dict) else {"input": value}


def tool_name(name: str | None) -> str:
    """A name both providers accept (letters, digits, ``_`` and ``-``, at most 64)."""
    cleaned = _NAME_OK.sub("_", name or "tool")[:64]
    return cleaned or "tool"


class ToolIds:
    """Maps call ids to ids the providers accept, the same way for a call and its result."""

    def __init__(self) -> None:
        self._map: dict[str, str] = {}

    def __call__(self, key: str | None) -> str:
        raw = key or ""
        if raw not in self._map:
            clean = _NAME_OK.sub("_", raw) or "call"
            taken = set(self._map.values())
            candidate, n = clean, 1
            while candidate in taken:
                n += 1
                candidate = f"{clean}_{n}"
            self._map[raw] = candidate
        return self._map[raw]


def image_marker(p: Part) -> str:
    url = p.meta.get("url")
    where = " (stored only as a link, not sent)" if url else ""
    size = f", {len(p.data)} bytes" if p.data is not None else ""
    return f"[image: {p.media_type or 'unknown type'}{size}{where}]"


def sendable_image(p: Part) -> bool:
    return p.data is not None and (p.media_type or "") in IMAGE_TYPES


def session_uuid(namespace: uuid.UUID, header: Mapping[str, Any], path: Sequence[Message]) -> str:
    """A session file's id: the same conversation and tip always give the same id, so an
    export is reproducible and two branches of one conversation never share a session."""
    source = header.get("source_id") or header.get("title") or ""
    tip = path[-1].id if path else None
    return str(uuid.uuid5(namespace, f"session/{source}/{tip}"))
