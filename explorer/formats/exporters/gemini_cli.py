"""A Gemini CLI chat file (JSONL) that ``gemini --resume <session id>`` continues.

The first line is the session's metadata (id, the project's hash, times, ``kind``);
each further line is a message record: ``user`` records hold the person's parts,
``gemini`` records the model's text and its tool calls *with their results inside
them* (``toolCalls[].result`` as ``functionResponse`` parts), which is how Gemini CLI
rebuilds the request history when it resumes. Consecutive model steps up to the
results of their calls are joined into one record, as Gemini CLI writes a response.
Thinking is left out (Gemini CLI would send it back as text); system messages too
(Gemini CLI brings its own system prompt); both are noted. Record ids are uuid5
values of the session and the message, so the same branch always gives the same file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

from explorer.formats.exporters.claude_code import iso
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

NAMESPACE = uuid.UUID("9d2f4b1e-6a3c-4f7d-8e5b-2c1a0f9e8d7c")


def session_id(header: Mapping[str, Any], path: Sequence[Message]) -> str:
    return session_uuid(NAMESPACE, header, path)


def lines(header: Mapping[str, Any], messages: Sequence[Message], tip: Hashable | None,
          notes: list[str] | None = None) -> Iterator[str]:
    notes = notes if notes is not None else []
    path = active_path(messages, tip)
    session = session_id(header, path)
    cwd = str(header.get("cwd") or (header.get("meta") or {}).get("cwd") or "")
    times = [m.created_at for m in path if m.created_at] or [header.get("created_at") or 0.0]
    meta: dict[str, Any] = {"sessionId": session,
                            "projectHash": hashlib.sha256(cwd.encode()).hexdigest(),
                            "startTime": iso(min(times)), "lastUpdated": iso(max(times)),
                            "kind": "main"}
    if header.get("title"):
        meta["summary"] = header["title"]
    yield _dump(meta)
    yield from _Writer(session, notes).records(answered_steps(path, notes))


def _spoken(step: Step) -> bool:
    """Whether a step says something (one record holds one text: two would join)."""
    return any(p.kind in ("text", "image") for p in step.parts)


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


class _Writer:
    def __init__(self, session: str, notes: list[str]) -> None:
        self.session = session
        self.notes = notes
        self.ids = ToolIds()
        self.left_out = 0

    def records(self, steps: Sequence[Step]) -> Iterator[str]:
        i = 0
        while i < len(steps):
            step = steps[i]
            if step.role == "system":
                self.notes.append(f"message {step.origin.id}: system message left out "
                                  "(Gemini CLI supplies its own system prompt)")
                i += 1
            elif step.role == "user" and not step.results:
                yield _dump(self._user(step))
                i += 1
            elif step.role == "assistant":
                turn = [step]  # one model response: its steps up to the results they got
                i += 1
                while i < len(steps) and not turn[-1].results and (
                        steps[i].results or (steps[i].role == "assistant" and not (
                            _spoken(steps[i]) and any(_spoken(s) for s in turn)))):
                    turn.append(steps[i])
                    i += 1
                yield _dump(self._model(turn))
            else:  # results without a model step before them: answered_steps never does this
                i += 1
        if self.left_out:
            self.notes.append(f"{self.left_out} thinking part(s) left out (Gemini CLI would "
                              "send them back to the model as text)")

    def _id(self, origin: Message, tag: str) -> str:
        return str(uuid.uuid5(NAMESPACE, f"{self.session}/{origin.id!r}/{tag}"))

    def _user(self, step: Step) -> dict[str, Any]:
        content = [self._user_part(p) for p in step.parts]
        return {"id": self._id(step.origin, "user"), "timestamp": iso(step.origin.created_at),
                "type": "user", "content": [c for c in content if c is not None]}

    def _user_part(self, p: Part) -> dict[str, Any] | None:
        if p.kind == "image" and sendable_image(p) and p.data is not None:
            return {"inlineData": {"mimeType": p.media_type,
                                   "data": base64.b64encode(p.data).decode()}}
        if p.kind == "image":
            return {"text": image_marker(p)}
        if p.kind == "thinking":
            self.left_out += 1
            return None
        return {"text": p.text}

    def _model(self, turn: Sequence[Step]) -> dict[str, Any]:
        first = next(s for s in turn if not s.results)
        results = {p.tool_use_id: p for s in turn if s.results for p in s.parts}
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        model = None
        for step in turn:
            if step.results:
                continue
            model = model or step.origin.model
            for p in step.parts:
                if p.kind == "tool_use":
                    calls.append(self._call(p, results.get(p.tool_use_id), step.origin))
                elif p.kind == "thinking":
                    self.left_out += 1
                elif p.kind == "image":
                    texts.append(image_marker(p))
                elif p.text:
                    texts.append(p.text)
        record: dict[str, Any] = {"id": self._id(first.origin, "gemini"),
                                  "timestamp": iso(first.origin.created_at), "type": "gemini",
                                  "content": "\n\n".join(texts), "thoughts": [],
                                  "model": model or "gemini"}
        if calls:
            record["toolCalls"] = calls
        return record

    def _call(self, use: Part, result: Part | None, origin: Message) -> dict[str, Any]:
        cid = self.ids(use.tool_use_id)
        name = tool_name(use.tool_name)
        output = result.text if result is not None else ""
        failed = result is None or result.is_error
        response = {"error": output} if failed else {"output": output}
        return {"id": cid, "name": name, "args": tool_arguments(use.text),
                "result": [{"functionResponse": {"id": cid, "name": name,
                                                 "response": response}}],
                "status": "error" if failed else "success", "timestamp": iso(origin.created_at),
                "displayName": use.tool_name or name, "description": "",
                "resultDisplay": output, "renderOutputAsMarkdown": False}
