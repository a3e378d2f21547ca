"""A Continue CLI session file, ``<sessions>/<sessionId>.json``, as one conversation.

The CLI (``extensions/cli/src/session.ts``) writes the whole session again after every
change: ``{sessionId, title, workspaceDirectory, history: [ChatHistoryItem], usage}``.
The items hold no times; the session's creation time is in the ``sessions.json`` index
beside the files (``dateCreated``, epoch milliseconds as text), read when it is there.
How the items become messages is :mod:`explorer.formats.continue_cli.history`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, json_object, parse_time, preview_title
from explorer.formats.continue_cli.history import FORMAT, messages
from explorer.formats.jsonl import peek_prefix

__all__ = ["FORMAT", "read", "sniff"]
INDEX = "sessions.json"
_DEFAULT_TITLE = "Untitled Session"


def sniff(path: Path) -> bool:
    if not path.is_file():
        return False
    head = peek_prefix(path, max_bytes=4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and b'"sessionId"' in head and b'"history"' in head and (
        b'"workspaceDirectory"' in head or b'"contextItems"' in head)


def read(path: Path) -> Iterator[ImportedConversation]:
    data = json_object(path, "a Continue CLI session")
    history = data.get("history")
    if not isinstance(history, list):
        raise FormatError(f"{path.name}: a Continue CLI session has a history list")
    sid = as_text(data.get("sessionId")) or path.stem
    conv = ImportedConversation(title="", source_format=FORMAT, messages=[], source_id=sid,
                                source_path=str(path))
    conv.meta["agent"] = FORMAT
    if isinstance(data.get("workspaceDirectory"), str) and data["workspaceDirectory"]:
        conv.meta["cwd"] = data["workspaceDirectory"]
    if isinstance(data.get("usage"), dict):
        conv.meta["usage"] = data["usage"]
    conv.created_at = _created(path, sid)
    conv.messages, conv.context_start = messages(sid, history, conv)
    if conv.messages and conv.created_at is not None and conv.messages[0].created_at is None:
        conv.messages[0].created_at = conv.created_at  # the only time the session keeps
    title = as_text(data.get("title")).strip()
    conv.title = title[:120] if title and title != _DEFAULT_TITLE else preview_title(
        conv.messages, sid)
    if not conv.messages:
        raise FormatError(f"{path.name}: a Continue CLI session without any message")
    yield finish(conv, conv.messages[-1].id)


def _created(path: Path, sid: str) -> float | None:
    """``dateCreated`` of the session in the index beside it (None when it is not listed)."""
    index = path.with_name(INDEX)
    try:
        entries = json.loads(index.read_bytes()) if index.is_file() else []
    except (OSError, ValueError, RecursionError):
        return None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("sessionId") == sid:
            return parse_time(entry.get("dateCreated"))
    return None
