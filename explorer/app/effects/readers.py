"""What each agent's file tools did, read from their calls' arguments.

Claude Code's ``Write``/``Edit``/``MultiEdit``/``Read``, Codex's ``apply_patch`` (a custom
tool, or a shell command carrying the patch), pi's ``write``/``edit``/``read``, Gemini CLI's
``write_file``/``replace``/``read_file`` and OpenCode's ``write``/``edit``/``read`` (and its
``patch``). Agents name the same arguments differently, so a call is read by its arguments
once its tool is known to touch files. A call that failed, or whose result says the person
rejected it, changed nothing; a call with no result on the path did not finish.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from explorer.app.effects.calls import ToolCall
from explorer.app.effects.patch import FilePatch, parse_patch, patch_text
from explorer.app.effects.seen import read_content

WRITE_TOOLS = {"write", "write_file", "create_file"}
EDIT_TOOLS = {"edit", "multiedit", "replace", "str_replace", "str_replace_editor"}
READ_TOOLS = {"read", "read_file", "view"}
PATCH_TOOLS = {"apply_patch", "patch"}
SHELL_TOOLS = {"shell", "exec_command", "local_shell", "bash", "container.exec"}
_PATH_KEYS = ("file_path", "filePath", "path", "absolute_path", "filename")
_OLD_KEYS = ("old_string", "oldString", "oldText", "old_str", "old")
_NEW_KEYS = ("new_string", "newString", "newText", "new_str", "new")
_REJECTED = re.compile(r"(?:\b(?:was|were) rejected|\buser rejected|rejected by the user|"
                       r"doesn't want to proceed|permission denied|\bdenied by\b|"
                       r"declined by the user)", re.IGNORECASE)
_FAILED = re.compile(r"^\s*(?:error|failed|failure|invalid|apply_patch verification failed)\b",
                     re.IGNORECASE)


@dataclass(frozen=True)
class Edit:
    old: str
    new: str
    replace_all: bool = False


@dataclass(frozen=True)
class FileOp:
    kind: str  # "write", "edit", "delete", "patch", "read"
    path: str
    text: str = ""  # what was written, or what a read showed
    edits: tuple[Edit, ...] = ()
    patch: FilePatch | None = None
    created: bool | None = None  # a write's result said it made a new file (None: not said)


def file_ops(call: ToolCall) -> list[FileOp]:
    """The file operations a call asked for (none for a tool that does not touch files)."""
    name = call.tool.lower().rsplit("__", 1)[-1]
    args = call.input if isinstance(call.input, dict) else {}
    if name in PATCH_TOOLS or (name in SHELL_TOOLS and "*** Begin Patch" in _flat(call.input)):
        return _patch_ops(call.input)
    path = _first(args, _PATH_KEYS)
    if path is None:
        return []
    if name in WRITE_TOOLS and isinstance(args.get("content"), str):
        return [FileOp("write", path, args["content"], created=_created(call))]
    if name in EDIT_TOOLS:
        edits = _edits(args)
        return [FileOp("edit", path, edits=edits)] if edits else []
    if name in READ_TOOLS and call.result is not None and not call.result.is_error:
        whole = not any(args.get(k) for k in ("offset", "limit", "start_line", "end_line",
                                                "view_range"))
        seen = read_content(call.result.text) if whole else None
        return [FileOp("read", path, seen)] if seen is not None else []
    return []


def outcome(call: ToolCall) -> str | None:
    """Why a changing call did not count (None: it did)."""
    r = call.result
    if r is None:
        return "no result on this path (the call did not finish)"
    if r.is_error:
        return "the call failed: " + _first_line(r.text)
    head = _first_line(_output(r.text))
    if _REJECTED.search(head):
        return "rejected: " + head
    if _FAILED.match(head) or _exit_code(r.text) not in (None, 0):
        return "the call failed: " + head
    return None


def _edits(args: dict[str, Any]) -> tuple[Edit, ...]:
    many = args.get("edits")
    rows = many if isinstance(many, list) else [args]
    out: list[Edit] = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        old, new = _first(row, _OLD_KEYS), _first(row, _NEW_KEYS)
        if old is None or new is None:
            continue
        count = row.get("expected_replacements")
        every = (row.get("replace_all") or row.get("replaceAll") or row.get("allow_multiple")
                 or (isinstance(count, int) and count > 1))
        out.append(Edit(old, new, bool(every)))
    return tuple(out)


def _patch_ops(value: Any) -> list[FileOp]:
    text = patch_text(_flat(value))
    if text is None:
        return []
    ops: list[FileOp] = []
    for fp in parse_patch(text):
        if fp.action == "add":
            ops.append(FileOp("write", fp.path, fp.content, created=True))
        elif fp.action == "delete":
            ops.append(FileOp("delete", fp.path))
        else:
            ops.append(FileOp("patch", fp.path, patch=fp))
    return ops


def _created(call: ToolCall) -> bool | None:
    said = _first_line(call.result.text).lower() if call.result else ""
    if "created" in said or "new file" in said:
        return True
    if "overwr" in said or "updated" in said:
        return False
    return None


def _flat(value: Any) -> str:
    """Every string a call's arguments hold, joined (a patch may sit in any of them)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_flat(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_flat(v) for v in value)
    return ""


def _first(args: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((args[k] for k in keys if isinstance(args.get(k), str)), None)


def _output(text: str) -> str:
    """Codex wraps a function call's output in JSON (``{"output": …, "metadata": …}``)."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return str(value.get("output", text)) if isinstance(value, dict) else text


def _exit_code(text: str) -> int | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    meta = value.get("metadata") if isinstance(value, dict) else None
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    return code if isinstance(code, int) else None


def _first_line(text: str) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return line if len(line) <= 160 else line[:159] + "…"
