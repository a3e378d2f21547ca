"""llm's message parts as explorer parts, from any schema llm has written.

llm ≥ 0.36 (migration ``m023_message_store``) keeps a part as ``parts(id,
message_hash, position, type, tool_name, text, payload)``: plain text in
``text``, everything else (tool name, ``arguments``, ``tool_call_id``,
``output``, ``exception``, ``redacted``, ``provider_metadata``) in the
``payload`` JSON, and text built from fragments (``llm -f``) as
``payload.text_ref = [{"fragment": id} | {"literal": text}, ...]``.
Attachments are referenced by id (``payload.attachment.id``, a tool result's
``payload.attachments``). Earlier layouts kept those fields as columns or in a
``messages.content`` JSON list; both are read the same way.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from explorer.formats.common import as_text
from explorer.formats.llm.sql import Row, columns, select
from explorer.tree.model import Part

PART_COLUMNS = (
    "id", "message_hash", "position", "type", "tool_name", "text", "payload", "fragment_id",
    "name", "arguments", "tool_call_id", "output", "exception",
)
_FIELDS = ("type", "text", "name", "arguments", "tool_call_id", "output", "exception")


class Lookups:
    """Fragments and attachments a part may point to, loaded only when asked for."""

    def __init__(self, conn: sqlite3.Connection | None = None,
                 tables: set[str] | None = None) -> None:
        self.conn, self.tables = conn, tables or set()
        self.fragments: dict[Any, str] = {}
        self.attachments: dict[Any, Row] = {}

    def load(self, items: Iterable[dict[str, Any]]) -> None:
        frags: set[Any] = set()
        atts: set[Any] = set()
        for item in items:
            if item.get("fragment_id") is not None:
                frags.add(item["fragment_id"])
            for piece in _list(item.get("text_ref")):
                if isinstance(piece, dict) and "fragment" in piece:
                    frags.add(piece["fragment"])
            atts.update(_attachment_ids(item))
        self.fragments.update(self._rows("fragments", ("id", "content"), frags, "content"))
        if "attachments" in self.tables and atts:
            wanted = ("id", "type", "path", "url", "content")
            for r in self._select("attachments", wanted, atts):
                self.attachments[r["id"]] = r

    def _rows(self, table: str, cols: tuple[str, ...], ids: set[Any], value: str) -> dict[Any, str]:
        return {r["id"]: as_text(r[value]) for r in self._select(table, cols, ids)}

    def _select(self, table: str, cols: tuple[str, ...], ids: set[Any]) -> list[Row]:
        conn = self.conn
        if conn is None or table not in self.tables or not ids or "id" not in columns(conn, table):
            return []
        keys = sorted(ids, key=str)
        out: list[Row] = []
        for start in range(0, len(keys), 500):
            chunk = tuple(keys[start : start + 500])
            out += select(conn, table, cols, f"WHERE id IN ({', '.join('?' * len(chunk))})",
                          chunk)
        return out


def row_item(row: Row, notes: list[str]) -> dict[str, Any]:
    """A ``parts`` row as llm's wire form of the part (``Part.to_dict()``)."""
    item: dict[str, Any] = {k: row[k] for k in (*_FIELDS, "fragment_id") if row.get(k) is not None}
    raw = row.get("payload")
    if raw:
        try:
            payload = json.loads(raw)
        except (ValueError, RecursionError):
            payload = None
        if isinstance(payload, dict):
            for k, v in payload.items():
                item.setdefault(k, v)
        else:
            where = f"message {as_text(row.get('message_hash'))} part {row.get('position')}"
            notes.append(f"{where}: payload is not a JSON object; kept it as text")
            item.setdefault("text", as_text(raw))
    if "name" not in item and row.get("tool_name") is not None:
        item["name"] = row["tool_name"]
    return item


def convert(item: object, key: str, lookups: Lookups, notes: list[str],
            unknown: dict[str, int]) -> list[Part]:
    """Explorer parts for one llm part; what cannot be read is named in ``notes``."""
    if not isinstance(item, dict):
        notes.append(f"message {key}: part {item!r:.40} is not an object; skipped")
        return []
    kind = as_text(item.get("type"))
    meta = _part_meta(item)
    if kind in ("text", "reasoning"):
        text = _text(item, key, lookups, notes)
        if kind == "text":
            return [Part("text", text, meta=meta)]
        return [Part("thinking", text, meta=meta)]
    name = as_text(item.get("name")) or None
    call_id = as_text(item.get("tool_call_id")) or None
    if kind == "tool_call":
        args = item.get("arguments")
        text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, default=str)
        return [Part("tool_use", text, tool_name=name, tool_use_id=call_id, meta=meta)]
    if kind == "tool_result":
        error = item.get("exception")
        output = as_text(item.get("output")) if item.get("output") is not None else ""
        result = Part("tool_result", output or as_text(error), tool_name=name,
                      tool_use_id=call_id, is_error=bool(error), meta=meta)
        if error and output:
            result.meta["exception"] = as_text(error)
        refs = _list(item.get("attachments"))
        return [result, *(_attachment(r, key, lookups, notes) for r in refs)]
    if kind == "attachment":
        return [_attachment(item.get("attachment"), key, lookups, notes)]
    unknown[f"part:{kind}"] = unknown.get(f"part:{kind}", 0) + 1
    notes.append(f"message {key}: part type {kind!r} is not known; skipped")
    return []


def _text(item: dict[str, Any], key: str, lookups: Lookups, notes: list[str]) -> str:
    if isinstance(item.get("text"), str):
        return str(item["text"])
    if item.get("fragment_id") is not None:
        fid = item["fragment_id"]
        if fid in lookups.fragments:
            return lookups.fragments[fid]
        notes.append(f"message {key}: fragment {fid} is missing; kept a marker")
        return f"[fragment {fid} missing]"
    pieces = _list(item.get("text_ref"))
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, dict) and "literal" in piece:
            out.append(as_text(piece["literal"]))
        elif isinstance(piece, dict) and piece.get("fragment") in lookups.fragments:
            out.append(lookups.fragments[piece["fragment"]])
        else:
            ref = piece.get("fragment") if isinstance(piece, dict) else piece
            notes.append(f"message {key}: fragment {ref!r:.40} is missing; kept a marker")
            out.append(f"[fragment {ref} missing]")
    if not pieces and item.get("text") is not None:
        return as_text(item["text"])
    return "".join(out)


def _attachment(ref: object, key: str, lookups: Lookups, notes: list[str]) -> Part:
    aid = ref.get("id") if isinstance(ref, dict) else None
    row = lookups.attachments.get(aid) if aid is not None else None
    inline = ref if isinstance(ref, dict) else {}
    source = row or inline
    mime = as_text(source.get("type")) or None
    data = source.get("content")
    meta = {"llm_part": "attachment", "llm_attachment": aid}
    if isinstance(data, bytes) and mime and mime.startswith("image/"):
        return Part("image", data=data, media_type=mime, meta=meta)
    where = as_text(source.get("path")) or as_text(source.get("url"))
    if row is None and aid is not None:
        notes.append(f"message {key}: attachment {aid} is not in the attachments table")
    label = ", ".join(x for x in (mime, where) if x) or "no details"
    return Part("text", f"[attachment: {label}]", media_type=mime, meta=meta)


def _part_meta(item: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for k in ("redacted", "server_executed", "provider_metadata"):
        if item.get(k):
            meta[f"llm_{k}"] = item[k]
    return meta


def _attachment_ids(item: dict[str, Any]) -> list[Any]:
    refs = [item.get("attachment"), *_list(item.get("attachments"))]
    return [r["id"] for r in refs if isinstance(r, dict) and r.get("id") is not None]


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []
