"""An OpenCode session export (``{"info", "messages"}``) that ``opencode import`` takes.

OpenCode keeps its sessions in a database; ``opencode import <file>`` adds an export
of this shape to it, keeping every id, and ``opencode --session <id>`` continues it.
Each model step is an assistant message answering the prompt before it
(``parentID``), holding its text and its tool calls *with their results inside
them* (``state: completed`` with the output, or ``error``); prompts that follow one
another unanswered are one message of several parts, as OpenCode answers a prompt.
OpenCode orders messages and parts by id and its ids begin with the time, so the ids
here are made the same way from each message's time (kept ascending) followed by
characters of a uuid5 of the session and the message: the same branch always gives the
same file. Thinking and
system messages are left out (OpenCode brings its own system prompt) and noted.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

from explorer.formats.exporters.steps import (
    Step,
    ToolIds,
    active_path,
    answered_steps,
    image_marker,
    sendable_image,
    session_uuid,
    tool_arguments,
    tool_name,
)
from explorer.tree.model import Message, Part

NAMESPACE = uuid.UUID("5a8e2c7f-1b3d-4e6a-9f0c-7d2b4a6e8c1f")
VERSION = "1.18.33"  # the OpenCode release whose export this follows
_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def session_id(header: Mapping[str, Any], path: Sequence[Message]) -> str:
    return "ses_" + _tail(uuid.UUID(session_uuid(NAMESPACE, header, path)), 26)


def _tail(u: uuid.UUID, n: int) -> str:
    value, out = u.int, []
    for _ in range(n):
        value, r = divmod(value, 62)
        out.append(_ALPHABET[r])
    return "".join(out)


def lines(header: Mapping[str, Any], messages: Sequence[Message], tip: Hashable | None,
          notes: list[str] | None = None) -> Iterator[str]:
    notes = notes if notes is not None else []
    path = active_path(messages, tip)
    session = session_id(header, path)
    meta = header.get("meta") or {}
    cwd = str(header.get("cwd") or meta.get("cwd") or "")
    times = [m.created_at for m in path if m.created_at] or [header.get("created_at") or 0.0]
    writer = _Writer(session, cwd, meta, notes)
    exported = writer.messages(answered_steps(path, notes))
    info = {"id": session, "slug": "handed-back", "projectID": "", "directory": cwd,
            "title": header.get("title") or "Handed-back branch",
            "version": header.get("agent_version") or VERSION,
            "time": {"created": _ms(min(times)), "updated": _ms(max(times))}}
    yield json.dumps({"info": info, "messages": exported}, ensure_ascii=False,
                     separators=(",", ":"))


def _ms(seconds: float | None) -> int:
    return int((seconds or 0.0) * 1000)


class _Writer:
    def __init__(self, session: str, cwd: str, meta: Mapping[str, Any],
                 notes: list[str]) -> None:
        self.session, self.cwd, self.notes = session, cwd, notes
        provider, _, model = str(meta.get("opencode_model") or "").partition("/")
        self.provider, self.model = provider or None, model or None
        self.ids = ToolIds()
        self.clock = 0  # OpenCode's id clock: milliseconds × 0x1000 + a counter
        self.prompt: str | None = None
        self.left_out = 0

    def messages(self, steps: Sequence[Step]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for i, step in enumerate(steps):
            if step.role == "system":
                self.notes.append(f"message {step.origin.id}: system message left out "
                                  "(OpenCode supplies its own system prompt)")
            elif step.role == "user" and not step.results:
                if out and out[-1]["info"]["role"] == "user":  # answered together: one prompt
                    out[-1]["parts"] += self._user(step, out[-1]["info"]["id"])["parts"]
                else:
                    out.append(self._user(step))
            elif step.role == "assistant":
                after = steps[i + 1] if i + 1 < len(steps) and steps[i + 1].results else None
                out.append(self._assistant(step, after))
        if self.left_out:
            self.notes.append(f"{self.left_out} thinking part(s) left out (OpenCode would "
                              "send them back to the model as text)")
        return out

    def _id(self, prefix: str, origin: Message, tag: str) -> str:
        self.clock = max(self.clock + 1, _ms(origin.created_at) * 0x1000)
        key = uuid.uuid5(NAMESPACE, f"{self.session}/{origin.id!r}/{tag}")
        return f"{prefix}_{self.clock % 2**48:012x}{_tail(key, 14)}"

    def _model(self, origin: Message) -> tuple[str, str]:
        return self.provider or "opencode", self.model or origin.model or "unknown"

    def _user(self, step: Step, into: str | None = None) -> dict[str, Any]:
        mid = into or self._id("msg", step.origin, "user")
        self.prompt = mid
        provider, model = self._model(step.origin)
        info = {"id": mid, "sessionID": self.session, "role": "user",
                "time": {"created": _ms(step.origin.created_at)}, "agent": "build",
                "model": {"providerID": provider, "modelID": model}}
        parts = [self._user_part(p, mid, step.origin, n) for n, p in enumerate(step.parts)]
        return {"info": info, "parts": [p for p in parts if p is not None]}

    def _user_part(self, p: Part, mid: str, origin: Message, n: int) -> dict[str, Any] | None:
        base = {"id": self._id("prt", origin, f"user/{n}"), "sessionID": self.session,
                "messageID": mid}
        if p.kind == "image" and sendable_image(p) and p.data is not None:
            url = f"data:{p.media_type};base64,{base64.b64encode(p.data).decode()}"
            return {**base, "type": "file", "mime": p.media_type, "filename": "image",
                    "url": url}
        if p.kind == "thinking":
            self.left_out += 1
            return None
        return {**base, "type": "text", "text": image_marker(p) if p.kind == "image" else p.text}

    def _assistant(self, step: Step, after: Step | None) -> dict[str, Any]:
        origin = step.origin
        mid = self._id("msg", origin, "assistant")
        results = {p.tool_use_id: p for p in (after.parts if after else [])}
        parts: list[dict[str, Any]] = []
        calls = False
        for n, p in enumerate(step.parts):
            base = {"id": self._id("prt", origin, f"assistant/{n}"), "sessionID": self.session,
                    "messageID": mid}
            if p.kind == "tool_use":
                calls = True
                parts.append({**base, **self._tool(p, results.get(p.tool_use_id), origin)})
            elif p.kind == "thinking":
                self.left_out += 1
            elif p.kind == "image" or p.text:
                text = image_marker(p) if p.kind == "image" else p.text
                parts.append({**base, "type": "text", "text": text})
        provider, model = self._model(origin)
        created = _ms(origin.created_at)
        info = {"id": mid, "sessionID": self.session, "role": "assistant",
                "time": {"created": created, "completed": created},
                "parentID": self.prompt or mid, "modelID": model, "providerID": provider,
                "mode": "build", "agent": "build", "path": {"cwd": self.cwd, "root": self.cwd},
                "cost": 0, "tokens": {"input": 0, "output": 0, "reasoning": 0,
                                      "cache": {"read": 0, "write": 0}},
                "finish": "tool-calls" if calls else "stop"}
        return {"info": info, "parts": parts}

    def _tool(self, use: Part, result: Part | None, origin: Message) -> dict[str, Any]:
        when = {"start": _ms(origin.created_at), "end": _ms(origin.created_at)}
        args = tool_arguments(use.text)
        output = result.text if result is not None else ""
        if result is None or result.is_error:
            state: dict[str, Any] = {"status": "error", "input": args, "error": output,
                                     "time": when}
        else:
            state = {"status": "completed", "input": args, "output": output,
                     "title": use.tool_name or "", "metadata": {}, "time": when}
        return {"type": "tool", "callID": self.ids(use.tool_use_id),
                "tool": tool_name(use.tool_name), "state": state}
