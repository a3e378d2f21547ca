"""OpenCode sessions: ``opencode export`` JSON files, storage folders and ``opencode.db``.

An export is ``{info, messages: [{info, parts}]}`` for one session; a storage
folder (see :mod:`explorer.formats.opencode.storage`) and, from OpenCode 1.2, the
SQLite database (see :mod:`explorer.formats.opencode.database`) hold many. All
become one conversation per session through :mod:`explorer.formats.opencode.convert`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import json_object
from explorer.formats.jsonl import peek_prefix
from explorer.formats.opencode.changes import read_changed
from explorer.formats.opencode.convert import FORMAT, conversation
from explorer.formats.opencode.database import is_database, read_database
from explorer.formats.opencode.storage import (
    find_layouts,
    layout_at,
    layout_conversations,
)

__all__ = ["FORMAT", "read", "read_changed", "sniff"]


def sniff(path: Path) -> bool:
    if path.is_dir():
        return next(find_layouts(path), None) is not None and _has_session(path)
    if not path.is_file():
        return False
    if is_database(path):
        return True
    head = peek_prefix(path, max_bytes=4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and b'"info"' in head and b'"ses_' in head and (
        b'"messages"' in peek_prefix(path, max_bytes=1 << 20) or b'"messages"' in head)


def _has_session(path: Path) -> bool:
    return any(layout.sessions() for layout in find_layouts(path))


def read(path: Path) -> Iterator[ImportedConversation]:
    if path.is_dir():
        yield from _read_storage(path)
        return
    if is_database(path):
        yield from read_database(path)
        return
    notes: list[str] = []
    data = json_object(path, "an OpenCode export")
    info = data.get("info")
    messages = data.get("messages")
    if not isinstance(info, dict) or not isinstance(messages, list):
        raise FormatError(f"{path.name}: an OpenCode export has an info object and a messages list")
    records: list[tuple[dict[str, Any], list[Any]]] = []
    for n, item in enumerate(messages):
        minfo = item.get("info") if isinstance(item, dict) else None
        if not isinstance(minfo, dict):
            notes.append(f"message {n}: no info object; skipped")
            continue
        parts = item.get("parts")
        records.append((minfo, parts if isinstance(parts, list) else []))
    conv = conversation(info, records, str(path), notes)
    if not conv.messages:
        raise FormatError(f"{path.name}: an OpenCode export without any message")
    yield conv


def _read_storage(path: Path) -> Iterator[ImportedConversation]:
    """Every session of the storage roots at ``path``, and the exports lying beside them."""
    layouts = list(find_layouts(path))
    if not layouts:
        raise FormatError(f"{path}: no OpenCode storage folder inside")
    for file in sorted(path.iterdir()):
        if file.is_file() and sniff(file):
            yield from read(file)  # exports, and an opencode.db beside the folder
    for layout in layouts:
        yield from layout_conversations(layout)


def storage_root(path: Path) -> bool:
    """True when ``path`` is itself an OpenCode storage root (for finding sources)."""
    return layout_at(path) is not None
