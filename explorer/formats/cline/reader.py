"""Cline CLI sessions: one JSON file of messages per agent, beside the session's manifest.

Cline 3 (the SDK-based CLI) files a session as ``sessions/<id>/<id>.json`` (the manifest:
cwd, provider, model, start, status, title) and ``<id>.messages.json``
(``{version, updated_at, agent, sessionId, origin, messages, system_prompt}``), and a
sub-agent's transcript as another ``*.messages.json`` in the same folder. The file is
rewritten whole after every turn, so a sync reads it again and keeps what it has by the
messages' ids; each message is converted by :mod:`explorer.formats.cline.messages`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.cline.messages import Converter, message_key
from explorer.formats.common import as_text, finish, parse_time, preview_title
from explorer.formats.jsonl import peek_prefix

FORMAT = "cline"
_SUFFIX = ".messages.json"
_KEPT = ("provider", "model", "status", "source", "workspace_root", "team_name")


def sniff(path: Path) -> bool:
    if not path.is_file():
        return False
    head = peek_prefix(path, max_bytes=4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    # Cline writes the header first: {"version", "updated_at", "agent", "sessionId", "origin"
    return head.startswith(b"{") and head[1:].lstrip().startswith(b'"version"') and all(
        k in head for k in (b'"sessionId"', b'"updated_at"', b'"agent"', b'"origin"'))


def load_json(path: Path, what: str) -> Any:
    """The JSON in ``path``; a damaged file is a :class:`FormatError` naming it."""
    try:
        with path.open("rb") as handle:
            return json.load(handle)
    except (ValueError, RecursionError) as exc:
        raise FormatError(f"{path}: {what} is not valid JSON ({str(exc).split(':')[0]})") from exc


def read(path: Path) -> Iterator[ImportedConversation]:
    data = load_json(path, "a Cline session")
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise FormatError(f"{path}: a Cline session is a JSON object with a messages list")
    session = as_text(data.get("sessionId")) or path.name.removesuffix(_SUFFIX)
    stem = path.name.removesuffix(_SUFFIX)
    conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                source_path=str(path),
                                source_id=session if stem in (session, path.name) else stem)
    conv.meta["agent"] = FORMAT
    if data.get("agent") not in (None, "lead"):
        conv.meta["cline_agent"] = data["agent"]
    origin = data.get("origin")
    if isinstance(origin, dict) and origin.get("version"):
        conv.meta["version"] = origin["version"]
    manifest = _manifest(path.with_name(f"{stem}.json"), conv.notes)
    if manifest:
        conv.created_at = parse_time(manifest.get("started_at"))
        if isinstance(manifest.get("cwd"), str):
            conv.meta["cwd"] = manifest["cwd"]
        conv.meta.update({k: manifest[k] for k in _KEPT if manifest.get(k) is not None})
        title = (manifest.get("metadata") or {}).get("title") \
            if isinstance(manifest.get("metadata"), dict) else None
        if isinstance(title, str) and title.strip() and stem == session:
            conv.title = title.strip()[:80]
    converter = Converter(conv.notes, conv.ignored_records,
                          default_model=as_text((manifest or {}).get("model")) or None)
    seen: set[str] = set()
    for index, raw in enumerate(data["messages"]):
        if not isinstance(raw, dict):
            conv.notes.append(f"message {index}: not a JSON object; skipped")
            continue
        key = message_key(raw, index, seen)
        conv.messages.extend(converter.add(raw, key, parse_time(raw.get("ts"))))
    if not conv.messages:
        raise FormatError(f"{path.name}: a Cline session without any message")
    conv.created_at = conv.created_at or conv.messages[0].created_at
    conv.title = conv.title or preview_title(conv.messages, conv.source_id or stem)
    yield finish(conv, conv.messages[-1].id)


def _manifest(path: Path, notes: list[str]) -> dict[str, Any] | None:
    """The session's manifest, when it is there; a damaged one is named and left out."""
    if not path.is_file():
        return None
    try:
        value = load_json(path, "the session's manifest")
    except (FormatError, OSError) as exc:
        notes.append(f"{exc}; its cwd, title and start time are left out")
        return None
    return value if isinstance(value, dict) else None
