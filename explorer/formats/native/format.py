"""The explorer's own lossless format: JSON Lines, one record per line.

Line 1 is a header (format, version, the conversation's fields); then one
``message`` record per message in tree order, then ``checkpoint``, ``rewind``
and ``compaction`` records. Message ids are positions in the file, so
exporting an imported export gives the same bytes again.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from explorer.formats.base import (
    FormatError,
    ImportedCheckpoint,
    ImportedCompaction,
    ImportedConversation,
    ImportedRewind,
)
from explorer.tree.model import Message, Part, Usage

FORMAT = "native"
MAGIC = "conversation-explorer"
VERSION = 1


def sniff(path: Path) -> bool:
    if not path.is_file():
        return False
    with path.open("rb") as f:
        head = f.readline(65536)
    try:
        first = json.loads(head)
    except ValueError:
        return False
    return isinstance(first, dict) and first.get("format") == MAGIC


def _dump(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _part(p: Part) -> dict[str, Any]:
    d: dict[str, Any] = {"kind": p.kind}
    for key in ("text", "tool_name", "tool_use_id", "media_type"):
        if getattr(p, key):
            d[key] = getattr(p, key)
    if p.is_error:
        d["is_error"] = True
    if p.data is not None:
        d["data_b64"] = base64.b64encode(p.data).decode("ascii")
    if p.meta:
        d["meta"] = p.meta
    return d


def dump_lines(
    conversation: dict[str, Any], messages: Sequence[Message], *,
    tip: Any, context_start: Any = None, checkpoints: dict[str, Any] | None = None,
    rewinds: Sequence[dict[str, Any]] = (), compactions: Sequence[dict[str, Any]] = (),
) -> Iterator[str]:
    """Lines of the export; ``messages`` must list parents before children."""
    pos = {m.id: i for i, m in enumerate(messages)}
    yield _dump({"format": MAGIC, "version": VERSION, "conversation": conversation,
                 "tip": pos.get(tip), "context_start": pos.get(context_start)})
    for m in messages:
        rec: dict[str, Any] = {
            "type": "message", "id": pos[m.id],
            "parent": pos.get(m.parent_id) if m.parent_id is not None else None,
            "role": m.role, "parts": [_part(p) for p in m.parts],
        }
        for key in ("created_at", "model", "source_id"):
            if getattr(m, key) is not None:
                rec[key] = getattr(m, key)
        if m.usage:
            rec["usage"] = m.usage.to_dict()
        if m.source_meta:
            rec["source_meta"] = m.source_meta
        yield _dump(rec)
    for label, target in (checkpoints or {}).items():
        if target in pos:
            yield _dump({"type": "checkpoint", "label": label, "message": pos[target]})
    for r in rewinds:
        if r["from_tip_id"] in pos and r["to_message_id"] in pos:
            yield _dump({"type": "rewind", "from": pos[r["from_tip_id"]],
                         "to": pos[r["to_message_id"]], "label": r.get("label"),
                         "digest": r.get("digest") or {}, "created_at": r.get("created_at")})
    for c in compactions:
        if c["message_id"] in pos:
            yield _dump({"type": "compaction", "message": pos[c["message_id"]],
                         "kind": c["kind"], "summary": c.get("summary", ""),
                         "params": c.get("params") or {}})


def read(path: Path) -> Iterator[ImportedConversation]:
    with path.open("r", encoding="utf-8") as f:
        try:
            header = json.loads(f.readline())
        except ValueError as e:
            raise FormatError(f"{path}: line 1 is not JSON ({e})") from e
        if not isinstance(header, dict) or header.get("format") != MAGIC:
            raise FormatError(f"{path}: not a Conversation Explorer export")
        if header.get("version") != VERSION:
            raise FormatError(f"{path}: export version {header.get('version')} is not supported")
        conv = header.get("conversation") or {}
        ic = ImportedConversation(
            title=conv.get("title") or path.stem, source_format=conv.get("source_format") or FORMAT,
            messages=[], tip=header.get("tip"), source_id=conv.get("source_id"),
            source_path=str(path), created_at=conv.get("created_at"), meta=conv.get("meta") or {},
            context_start=header.get("context_start"),
        )
        for n, line in enumerate(f, start=2):
            _read_record(ic, n, line)
    yield ic


def _read_record(ic: ImportedConversation, n: int, line: str) -> None:
    try:
        rec = json.loads(line)
        kind = rec["type"]
        if kind == "message":
            ic.messages.append(_message(rec))
        elif kind == "checkpoint":
            ic.checkpoints.append(ImportedCheckpoint(rec["label"], rec["message"]))
        elif kind == "rewind":
            ic.rewinds.append(ImportedRewind(rec["from"], rec["to"], rec.get("label") or "",
                                             rec.get("digest") or {}, rec.get("created_at")))
        elif kind == "compaction":
            ic.compactions.append(ImportedCompaction(rec["message"], rec["kind"],
                                                     rec.get("summary", ""), rec.get("params", {})))
        else:
            ic.ignored_records[str(kind)] += 1
    except (ValueError, KeyError, TypeError) as e:
        if line.strip():
            ic.notes.append(f"line {n}: skipped ({type(e).__name__}: {e})")


def _message(rec: dict[str, Any]) -> Message:
    parts = [
        Part(kind=p["kind"], text=p.get("text", ""), tool_name=p.get("tool_name"),
             tool_use_id=p.get("tool_use_id"), is_error=bool(p.get("is_error")),
             data=base64.b64decode(p["data_b64"]) if "data_b64" in p else None,
             media_type=p.get("media_type"), meta=p.get("meta") or {})
        for p in rec["parts"]
    ]
    return Message(id=rec["id"], parent_id=rec.get("parent"), role=rec["role"], parts=parts,
                   created_at=rec.get("created_at"), model=rec.get("model"),
                   usage=Usage.from_dict(rec.get("usage")), source_id=rec.get("source_id"),
                   source_meta=rec.get("source_meta") or {})
