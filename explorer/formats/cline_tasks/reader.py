"""A task folder of the Cline extension, or of its forks Roo Code and Kilo Code.

Each keeps a task in ``<globalStorage>/<extension id>/tasks/<task id>/``:
``api_conversation_history.json`` (the messages sent to the model: Anthropic-style blocks,
with ``ts``, ``id`` and ``modelInfo`` in newer versions), ``ui_messages.json`` (the panel's
timeline: ``say``/``ask`` entries with ``ts``, each request's tokens and cost in an
``api_req_started`` entry) and ``task_metadata.json`` (Cline: the models used and when).
Cline also indexes tasks in ``<globalStorage>/<id>/state/taskHistory.json`` (the working
folder of each). The files are rewritten whole; a sync reads the folder again and keeps
what it has by each message's id, else its timestamp. A message without a timestamp
takes that of the request it went with (the n-th ``api_req_started``), and without a
model the one the task metadata says was in use then.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.cline.messages import Converter, message_key
from explorer.formats.cline.reader import load_json
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.jsonl import peek_prefix
from explorer.formats.size_limit import EXPORTS, SizeLimit
from explorer.tree.model import Message, Usage

FORMAT = "cline_tasks"
HISTORY = "api_conversation_history.json"
LIMIT = SizeLimit(EXPORTS, "Cline task histories")
"""Checked here, on the history file: the registry's own check sees only a folder."""
_CWD = re.compile(r"# Current (?:Working|Workspace) Directory \((.+?)\) Files")


def sniff(path: Path) -> bool:
    """A folder holding a task's API history beside its timeline or metadata."""
    history = path / HISTORY
    if not path.is_dir() or not history.is_file():
        return False
    if not ((path / "ui_messages.json").is_file() or (path / "task_metadata.json").is_file()):
        return False
    head = peek_prefix(history, max_bytes=1024).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"[") and (head[1:].lstrip().startswith((b"{", b"]")))


def read(path: Path) -> Iterator[ImportedConversation]:
    refusal = LIMIT.refusal(path / HISTORY)
    if refusal is not None:
        raise FormatError(refusal)
    api = load_json(path / HISTORY, "the task's API history")
    if not isinstance(api, list):
        raise FormatError(f"{path / HISTORY}: a task's API history is a JSON list")
    task = path.name
    conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                source_path=str(path), source_id=task)
    conv.meta["agent"] = FORMAT
    ui = _optional(path / "ui_messages.json", "the task's timeline", conv.notes)
    requests = [m for m in ui if isinstance(m, dict) and m.get("say") == "api_req_started"] \
        if isinstance(ui, list) else []
    usage_log = _model_usage(_optional(path / "task_metadata.json", "the task's metadata",
                                       conv.notes))
    converter = Converter(conv.notes, conv.ignored_records)
    seen: set[str] = set()
    asked = answered = 0
    for index, raw in enumerate(api):
        if not isinstance(raw, dict):
            conv.notes.append(f"{HISTORY}: message {index} is not a JSON object; skipped")
            continue
        role = raw.get("role")
        n = answered if role == "assistant" else asked
        request = requests[n] if n < len(requests) else None
        when = parse_time(raw.get("ts")) or (parse_time(request.get("ts")) if request else None)
        converter.default_model = _model_at(usage_log, when)
        made = converter.add(raw, message_key(raw, index, seen), when)
        if role == "assistant":
            answered += 1
            for m in made:
                _request_usage(m.source_meta, request, m)
        else:
            asked += 1
        conv.messages.extend(made)
    if not conv.messages:
        raise FormatError(f"{path}: a task without any message")
    first_ts = ui[0].get("ts") if isinstance(ui, list) and ui and isinstance(ui[0], dict) \
        else None
    conv.created_at = parse_time(first_ts) or parse_time(task) or conv.messages[0].created_at
    _place(conv, path)
    conv.title = conv.title or preview_title(conv.messages, task)
    yield finish(conv, conv.messages[-1].id)


def _optional(path: Path, what: str, notes: list[str]) -> Any:
    """A file the task can do without: absent or damaged, it is named and left out."""
    if not path.is_file():
        return None
    try:
        return load_json(path, what)
    except (FormatError, OSError) as exc:
        notes.append(f"{exc}; read the task without it")
        return None


def _model_usage(metadata: Any) -> list[tuple[float, str]]:
    """``(since, model)`` from Cline's ``task_metadata.json``, oldest first."""
    entries = metadata.get("model_usage") if isinstance(metadata, dict) else None
    out = [(parse_time(e.get("ts")) or 0.0, as_text(e.get("model_id")))
           for e in entries or [] if isinstance(e, dict) and e.get("model_id")]
    return sorted(out)


def _model_at(log: list[tuple[float, str]], when: float | None) -> str | None:
    """The model in use at ``when``: the last one chosen by then (else the first)."""
    if not log:
        return None
    chosen = log[0][1]
    for since, name in log:
        if when is None or since <= when + 1:
            chosen = name
    return chosen


def _request_usage(meta: dict[str, Any], request: dict[str, Any] | None, m: Message) -> None:
    """Tokens and cost of the request an answer came from, as its ``api_req_started`` says."""
    if request is None:
        return
    try:
        text = request.get("text")
        info = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return
    if not isinstance(info, dict):
        return
    if isinstance(info.get("cost"), int | float):
        meta["cost"] = info["cost"]
    if m.usage is None and isinstance(info.get("tokensIn"), int):
        m.usage = Usage(info.get("tokensIn"), info.get("tokensOut"),
                        info.get("cacheReads") or None, info.get("cacheWrites") or None)


def _place(conv: ImportedConversation, path: Path) -> None:
    """The task's working folder (Cline's task index, else the first environment details),
    and its title from the index when there is one."""
    index = path.parent.parent / "state" / "taskHistory.json"
    entry: dict[str, Any] | None = None
    if index.is_file():
        try:
            items = load_json(index, "the task index")
        except (FormatError, OSError):
            items = None
        if isinstance(items, list):
            entry = next((i for i in items if isinstance(i, dict) and i.get("id") == path.name),
                         None)
    if entry is not None:
        cwd = entry.get("cwdOnTaskInitialization") or entry.get("workspace")
        if isinstance(cwd, str) and cwd:
            conv.meta["cwd"] = cwd
        if isinstance(entry.get("task"), str) and entry["task"].strip():
            conv.title = entry["task"].strip().splitlines()[0][:80]
    if "cwd" not in conv.meta:
        for m in conv.messages:
            for text in m.source_meta.get("context", []):
                match = _CWD.search(text)
                if match:
                    conv.meta["cwd"] = match.group(1)
                    return
