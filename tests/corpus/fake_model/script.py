"""What the fake model says next, decided from the user's words and the tools on offer.

A prompt may hold marker lines, each one tool call, taken in order as the results come
back: ``TOOL:bash:<command>``, ``TOOL:read:<path>``, ``TOOL:write:<path>:<text>`` and
``TOOL:edit:<path>:<old>=><new>`` and ``TOOL:task:<description>:<prompt>`` (a subagent; a
``\\n`` in its prompt is a line break, so the prompt may hold markers of its own). A marker
written ``TOOL+:`` is called in the same reply as the one before it (parallel calls; the
Anthropic wire sends them together). A ``THINK:<text>`` line opens the first reply with a
signed thinking block. When the markers are used up the model answers in text, quoting the
last result, so a recording shows that the result reached it. A request that
asks for JSON (titles, routing, "who speaks next") gets an object that fits its schema.
"""

from __future__ import annotations

import itertools
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.corpus.fake_model.edit_blocks import edit_reply

TOOL_NAMES = {
    "bash": ("bash", "shell", "shell_command", "exec_command", "run_shell_command", "local_shell",
             "execute", "run_terminal_cmd", "terminal", "run_command", "shell_exec",
             "run_commands"),
    "read": ("read", "read_file", "view", "readfile", "file_read", "cat"),
    "write": ("write", "write_file", "create_file", "writefile", "file_write", "write_to_file",
              "create"),
    "edit": ("edit", "replace", "edit_file", "str_replace", "str_replace_editor",
             "strreplacefile", "search_replace", "file_edit", "replace_in_file"),
    "task": ("task", "agent"),
}
ARG_KEYS = {
    "command": ("command", "cmd", "commandline", "script"),
    "path": ("file_path", "filepath", "path", "absolute_path", "file", "filename", "target_file"),
    "content": ("content", "contents", "text", "file_text"),
    "old": ("old_string", "oldstring", "old_str", "old", "old_text", "oldtext", "search"),
    "new": ("new_string", "newstring", "new_str", "new", "new_text", "newtext", "replace"),
    "prompt": ("prompt",),
}
MARKER = re.compile(r"^\s*TOOL(\+?):(bash|read|write|edit|task):(.*)$")
THINK = re.compile(r"^\s*THINK:(.*)$", re.M)
_counter = itertools.count(1)
_lock = threading.Lock()


@dataclass
class Exchange:
    """A request, as every wire format reduces to it."""
    prompt: str
    results: list[str] = field(default_factory=list)  # tool results since the prompt
    tools: list[dict[str, Any]] = field(default_factory=list)  # {"name", "schema"}
    json_schema: dict[str, Any] | None = None


@dataclass
class Text:
    text: str
    thinking: str | None = None  # a signed thinking block before the text


@dataclass
class Call:
    name: str
    args: dict[str, Any]
    preamble: str
    also: list[Call] = field(default_factory=list)  # called in the same reply
    thinking: str | None = None


def reply(ex: Exchange) -> Text | Call:
    with _lock:
        n = next(_counter)
    if ex.json_schema is not None:
        import json
        return Text(json.dumps(fill(ex.json_schema)))
    edits = edit_reply(ex.prompt, n) if not ex.tools and not ex.results else None
    if edits is not None:
        return Text(edits)
    think = THINK.search(ex.prompt)
    thinking = think.group(1).strip() if think and not ex.results else None
    batch = _next_batch(ex.prompt, len(ex.results))
    calls = [c for c in (_call(ex.tools, kind, arg.strip()) for kind, arg in batch) if c]
    if calls:
        call = calls[0]
        call.preamble = f"Calling {call.name} (reply {n})."
        call.also, call.thinking = calls[1:], thinking
        return call
    if ex.results:
        seen = " ".join(ex.results[-1].split())[:60]
        return Text(f"Saw tool result: {seen!r} (reply {n})", thinking)
    head = " ".join(re.sub(r"<(system-reminder|current_datetime)>.*?</\1>", "", ex.prompt,
                           flags=re.S).split())[:60]
    return Text(f"Answer {n} to: {head}", thinking)


def _next_batch(prompt: str, answered: int) -> list[tuple[str, str]]:
    """The markers of the reply after ``answered`` results: one, or a ``TOOL+`` run."""
    batches: list[list[tuple[str, str]]] = []
    for m in (MARKER.match(line) for line in prompt.splitlines()):
        if m is None:
            continue
        plus, kind, arg = m.groups()
        if plus and batches:
            batches[-1].append((kind, arg))
        else:
            batches.append([(kind, arg)])
    for batch in batches:
        if answered <= 0:
            return batch
        answered -= len(batch)
    return []


def _call(tools: list[dict[str, Any]], kind: str, arg: str) -> Call | None:
    by_name = {_norm(t["name"]): t for t in tools if t.get("name")}
    tool = next((by_name[c] for c in TOOL_NAMES[kind] if c in by_name), None)
    if tool is None:
        return None
    values = _values(kind, arg)
    props: dict[str, Any] = (tool.get("schema") or {}).get("properties") or {}
    args: dict[str, Any] = {}
    for prop, spec in props.items():
        role = next((r for r, keys in ARG_KEYS.items() if _norm(prop) in keys), None)
        if role in values:
            value: Any = values[role]
            if role == "command" and (spec or {}).get("type") == "array":
                value = ["bash", "-lc", value]
            args[prop] = value
        elif _norm(prop) == "commands" and "command" in values:  # Cline: a list of commands
            args[prop] = [values["command"]]
        elif _norm(prop) == "description":
            args[prop] = values.get("description") or f"{kind} for the recording"
        elif kind == "task" and _norm(prop) == "run_in_background":
            args[prop] = False  # the answer waits for the subagent's report
        elif kind == "task" and _norm(prop) == "subagent_type":
            args[prop] = "general-purpose"
        elif (spec or {}).get("type") == "array" and _item(spec.get("items"), values):
            args[prop] = [_item(spec.get("items"), values)]  # pi's edits: [{oldText, newText}]
        elif _one_of_objects(spec, values) is not None:  # Kimi CLI's edit: {old, new} or a list
            args[prop] = _one_of_objects(spec, values)
    required = (tool.get("schema") or {}).get("required") or []
    for prop in required:
        if prop not in args:
            args[prop] = fill(props.get(prop) or {"type": "string"})
    return Call(tool["name"], args, "")


def _item(schema: Any, values: dict[str, str]) -> dict[str, str] | None:
    """An array item whose properties are all roles the marker gives (an edit list)."""
    props = (schema or {}).get("properties") if isinstance(schema, dict) else None
    if not props:
        return None
    roles = {p: next((r for r, keys in ARG_KEYS.items() if _norm(p) in keys), None)
             for p in props}
    if not all(r in values for r in roles.values()):
        return None
    return {p: values[r] for p, r in roles.items() if r is not None}


def _one_of_objects(spec: Any, values: dict[str, str]) -> dict[str, str] | None:
    """The object branch of an ``anyOf`` whose required properties are roles the marker gives."""
    branches = (spec or {}).get("anyOf") if isinstance(spec, dict) else None
    for branch in branches or ():
        props = (branch or {}).get("properties") if isinstance(branch, dict) else None
        if not props:
            continue
        roles = {p: next((r for r, keys in ARG_KEYS.items() if _norm(p) in keys), None)
                 for p in props}
        needed = branch.get("required") or list(props)
        if all(roles.get(p) in values for p in needed):
            return {p: values[r] for p, r in roles.items() if r in values}
    return None


def _values(kind: str, arg: str) -> dict[str, str]:
    if kind == "bash":
        return {"command": arg}
    if kind == "read":
        return {"path": arg}
    if kind == "task":
        what, _, prompt = arg.partition(":")
        return {"description": what, "prompt": prompt.replace("\\n", "\n")}
    path, _, rest = arg.partition(":")
    if kind == "write":
        return {"path": path, "content": rest.replace("\\n", "\n")}
    old, _, new = rest.partition("=>")
    return {"path": path, "old": old, "new": new}


def fill(schema: dict[str, Any]) -> Any:
    """A small value of the shape ``schema`` asks for."""
    if schema.get("enum"):
        values = schema["enum"]
        return "user" if "user" in values else values[0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {k: fill(v) for k, v in props.items()}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return 1
    return "Recorded session"


def _norm(name: str) -> str:
    return name.lower().replace("-", "_")
