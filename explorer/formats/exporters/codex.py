"""A Codex CLI rollout (JSONL) that ``codex resume <id>`` continues.

The first line is ``session_meta`` (id, working folder, git, Codex version);
then one ``response_item`` per item the model sees, in the order Codex writes
them: reasoning, assistant text, function calls, and each call's output; user
text and the prompts Codex injects. Next to a prompt and an answer an
``event_msg`` repeats them, as Codex does, so its terminal can show the history
when the session is resumed. Each prompt opens a turn as Codex marks one
(``task_started``, ``turn_context``, ``task_complete``): on resume Codex takes the
last ``turn_context`` as what the model was already told, so it does not send its
instructions and environment again (see :class:`_Turns`).

The path first goes through :func:`answered_steps`, so every call is answered
(an unanswered call gets an "interrupted" result). Reasoning keeps Codex's
sealed ``encrypted_content`` when the message came from Codex; other thinking
is written as a readable summary. Save the file as
``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

from explorer.formats.exporters.claude_code import iso
from explorer.formats.exporters.steps import Step, active_path, answered_steps, session_uuid
from explorer.tree.model import Message, Part

NAMESPACE = uuid.UUID("3c1e9a52-7b44-4d0f-8e2a-6f5d1c9b0a73")
VERSION = "0.125.0"
DEFAULT_CWD = "/"


def session_id(header: Mapping[str, Any], path: Sequence[Message]) -> str:
    return session_uuid(NAMESPACE, header, path)


def lines(header: Mapping[str, Any], messages: Sequence[Message], tip: Hashable | None,
          notes: list[str] | None = None) -> Iterator[str]:
    notes = notes if notes is not None else []
    path = active_path(messages, tip)
    meta = header.get("meta") or {}
    start = header.get("created_at") or (path[0].created_at if path else None)
    payload: dict[str, Any] = {
        "id": session_id(header, path), "timestamp": iso(start),
        "cwd": header.get("cwd") or meta.get("cwd") or DEFAULT_CWD,
        "originator": "codex_cli_rs", "cli_version": header.get("agent_version") or VERSION,
        "source": "cli",
    }
    if isinstance(meta.get("model_provider"), str) and meta["model_provider"]:
        # Named only when known: Codex refuses to resume a thread under another provider.
        payload["model_provider"] = meta["model_provider"]
    if isinstance(meta.get("instructions"), str) and header.get("source_format") == "codex":
        payload["base_instructions"] = {"text": meta["instructions"]}
    if isinstance(meta.get("git"), dict):
        payload["git"] = meta["git"]
    elif meta.get("git_branch"):
        payload["git"] = {"branch": meta["git_branch"]}
    yield _line(start, "session_meta", payload)
    steps = answered_steps(path, notes)
    writer = _Writer(notes, start, _Turns(payload["id"], payload["cwd"], meta, steps))
    for step in steps:
        yield from writer.step(step)
    yield from writer.close_turn()


_SANDBOX = {"type": "workspace-write", "writable_roots": [], "network_access": False,
            "exclude_tmpdir_env_var": False, "exclude_slash_tmp": False}


class _Turns:
    """The turn records Codex writes around each prompt (``task_started``, ``turn_context``,
    ``task_complete``). On resume Codex takes its last ``turn_context`` as the baseline of what
    the model was already told (instructions, environment, permissions, model); without one it
    sends all of that again after the branch. The context is the one the session's own Codex
    last wrote when it came from Codex (``meta["turn_context"]``), else Codex's defaults, with
    the model of the turn's answer (or the person's configured one, ``meta["codex_model"]``)."""

    def __init__(self, session: str, cwd: str, meta: dict[str, Any],
                 steps: Sequence[Step]) -> None:
        self.session, self.cwd = session, cwd
        own = meta.get("turn_context")
        self.template: dict[str, Any] = dict(own) if isinstance(own, dict) else {
            "approval_policy": "on-request", "sandbox_policy": dict(_SANDBOX),
            "summary": "auto"}
        for key in ("turn_id", "current_date", "trace_id"):
            self.template.pop(key, None)
        configured = meta.get("codex_model")
        self.fallback = configured if isinstance(configured, str) else self.template.get("model")
        self.models = _answer_models(steps, self.fallback)
        self.count = 0

    def context(self, index: int, when: float | None) -> tuple[str, dict[str, Any]]:
        self.count += 1
        turn = str(uuid.uuid5(NAMESPACE, f"{self.session}:turn:{self.count}"))
        payload: dict[str, Any] = {"turn_id": turn, **self.template, "cwd": self.cwd}
        if when is not None:
            payload["current_date"] = iso(when)[:10]
        model = self.models.get(index) or self.fallback
        if model:
            payload["model"] = model
        return turn, payload


def _answer_models(steps: Sequence[Step], fallback: object) -> dict[int, str]:
    """By step index: the model of the first answer from it on. Another agent's model names
    mean nothing to Codex: they are used only where no configured model is known."""
    out: dict[int, str] = {}
    model: str | None = None
    for i in range(len(steps) - 1, -1, -1):
        m = steps[i].origin
        if steps[i].role == "assistant" and m.model:
            model = m.model if (m.source_meta.get("codex_item") or not fallback) else None
        if model:
            out[i] = model
    return out


def _line(when: float | None, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": iso(when), "type": kind, "payload": payload},
                      ensure_ascii=False, separators=(",", ":"))


class _Writer:
    def __init__(self, notes: list[str], start: float | None, turns: _Turns) -> None:
        self.notes = notes
        self.when = start
        self.custom: set[str] = set()
        self.turns = turns
        self.turn: str | None = None
        self.answering = False  # the open turn has had an answer or a tool result
        self.last_answer: str | None = None
        self.index = -1

    def step(self, step: Step) -> Iterator[str]:
        self.when = step.origin.created_at or self.when
        self.index += 1
        prompt = step.role != "assistant" and any(p.kind != "tool_result" for p in step.parts)
        if self.turn is None or (prompt and self.answering):
            yield from self.close_turn()
            yield from self._open_turn()
        if step.role == "assistant" or not prompt:
            self.answering = True
        if step.role == "assistant":
            yield from self._assistant(step.parts)
            return
        codex_role = step.origin.source_meta.get("codex_role")
        role = "developer" if step.role == "system" and codex_role != "user" else "user"
        content: list[dict[str, Any]] = []
        for p in step.parts:
            if p.kind == "tool_result":
                yield self._output(p)
            elif p.kind == "image":
                content.append(self._image(p))
            elif p.kind in ("text", "thinking") and p.text:
                content.append({"type": "input_text", "text": p.text})
        if content:
            yield self._item({"type": "message", "role": role, "content": content})
            text = "\n".join(c["text"] for c in content if c["type"] == "input_text")
            if role == "user" and step.role == "user" and text:
                yield _line(self.when, "event_msg", {"type": "user_message", "message": text,
                                                     "images": []})

    def _open_turn(self) -> Iterator[str]:
        self.turn, context = self.turns.context(self.index, self.when)
        self.answering, self.last_answer = False, None
        yield _line(self.when, "event_msg", {
            "type": "task_started", "turn_id": self.turn,
            "started_at": int(self.when) if self.when is not None else None,
            "collaboration_mode_kind": "default"})
        yield _line(self.when, "turn_context", context)

    def close_turn(self) -> Iterator[str]:
        """The open turn's end, as Codex marks a turn it finished."""
        if self.turn is None:
            return
        yield _line(self.when, "event_msg", {"type": "task_complete", "turn_id": self.turn,
                                             "last_agent_message": self.last_answer})
        self.turn = None

    def _assistant(self, parts: list[Part]) -> Iterator[str]:
        for p in parts:
            if p.kind == "thinking":
                yield self._item(self._reasoning(p))
            elif p.kind == "text" and p.text:
                yield self._item({"type": "message", "role": "assistant",
                                  "content": [{"type": "output_text", "text": p.text}]})
                yield _line(self.when, "event_msg", {"type": "agent_message", "message": p.text})
                self.last_answer = p.text
            elif p.kind == "tool_use":
                yield self._item(self._call(p))
            elif p.kind == "image":
                self.notes.append("an image in an answer left out (Codex answers hold no images)")

    def _reasoning(self, p: Part) -> dict[str, Any]:
        sealed = p.meta.get("encrypted_content")
        summary = [{"type": "summary_text", "text": p.text}] if p.text else []
        return {"type": "reasoning", "summary": summary, "content": None,
                "encrypted_content": sealed if isinstance(sealed, str) else None}

    def _call(self, p: Part) -> dict[str, Any]:
        name = p.tool_name or "tool"
        if p.tool_use_id is None:  # Codex's own web search: it keeps no result
            action = _json(p.text)
            return {"type": "web_search_call", "status": "completed",
                    "action": action if isinstance(action, dict) else {"type": "search"}}
        if p.meta.get("custom"):
            self.custom.add(p.tool_use_id)
            return {"type": "custom_tool_call", "status": "completed", "call_id": p.tool_use_id,
                    "name": name, "input": p.text}
        return {"type": "function_call", "name": name, "arguments": p.text or "{}",
                "call_id": p.tool_use_id}

    def _output(self, p: Part) -> str:
        call = p.tool_use_id or ""
        kind = "custom_tool_call_output" if call in self.custom else "function_call_output"
        return self._item({"type": kind, "call_id": call, "output": p.text})

    def _image(self, p: Part) -> dict[str, Any]:
        if p.data is None:
            return {"type": "input_text", "text": "[image]"}
        data = base64.b64encode(p.data).decode("ascii")
        return {"type": "input_image",
                "image_url": f"data:{p.media_type or 'image/png'};base64,{data}"}

    def _item(self, payload: dict[str, Any]) -> str:
        return _line(self.when, "response_item", payload)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
