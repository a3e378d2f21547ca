"""Printing: plain lines for people, ``--json`` for programs.

Imported text may hold terminal escapes (ANSI colour codes, a title-setting OSC, NUL, a
carriage return that overwrites the line) or bidi overrides that reorder what is shown.
Lines for people show every such character as a visible symbol (``␛``, ``␀``, ``\x9b``,
``\u202e``) so a transcript cannot drive the terminal; ``--json`` keeps the exact text.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

from explorer.app.views.meta_records import NOT_SENT, meta_record
from explorer.tree.model import Message

_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
_VISIBLE = {
    **{c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)},  # ␀ … ␛ …
    0x7F: "\u2421",  # ␡
    **{c: f"\\x{c:02x}" for c in range(0x80, 0xA0)},
    **{c: f"\\u{c:04x}" for c in _BIDI},
}


_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0), *_BIDI)}


def visible(text: str) -> str:
    """``text`` with control and bidi characters shown as symbols (tabs and newlines stay)."""
    return text.translate(_VISIBLE)


def json_text(payload: Any) -> str:
    """Exact JSON in which no raw control or bidi character reaches a terminal (they are
    ``\\u`` escapes, which every JSON reader turns back into the same text)."""
    text = json.dumps(payload, ensure_ascii=False, indent=2, default=str)
    return text.translate(_JSON_ESCAPES)


def emit(args: argparse.Namespace, payload: Any, lines: list[str]) -> None:
    if getattr(args, "json", False):
        sys.stdout.write(json_text(payload) + "\n")
    else:
        for line in lines:
            print(visible(line))


def message_dict(m: Message) -> dict[str, Any]:
    return {
        "id": m.id, "parent": m.parent_id, "role": m.role, "model": m.model,
        "created_at": m.created_at, "usage": m.usage.to_dict() if m.usage else None,
        "parts": [
            {"kind": p.kind, "text": p.text, "tool_name": p.tool_name,
             "tool_use_id": p.tool_use_id, "is_error": p.is_error, "media_type": p.media_type,
             "bytes": len(p.data) if p.data is not None else None}
            for p in m.parts
        ],
    }


def message_lines(m: Message, full: bool = False, width: int = 100) -> list[str]:
    when = (datetime.fromtimestamp(m.created_at, UTC).strftime("%Y-%m-%d %H:%M")
            if m.created_at else "")
    record = meta_record(m) if m.source_meta.get("meta_record") in NOT_SENT else None
    role = f"note · {record.label}" if record is not None else m.role  # bookkeeping, quiet
    head = f"--- {m.id} {role}" + (f" · {m.model}" if m.model else "") + f" {when}"
    out = [head.rstrip()]
    for p in m.parts:
        if p.kind == "text":
            body = p.text
        elif p.kind == "thinking":
            body = f"(thinking) {p.text}"
        elif p.kind == "tool_use":
            body = f"→ {p.tool_name}({p.text})"
        elif p.kind == "tool_result":
            body = ("✗ " if p.is_error else "← ") + p.text
        else:
            body = f"[image {p.media_type or ''}, {len(p.data or b'')} bytes]"
        if not full and len(body) > width * 3:
            body = body[: width * 3] + f"… ({len(body):,} chars)"
        out.extend(body.replace("\r\n", "\n").split("\n"))  # a lone \r stays visible
    return out
