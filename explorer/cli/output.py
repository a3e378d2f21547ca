"""Printing: plain lines for people, ``--json`` for programs."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

from explorer.tree.model import Message


def emit(args: argparse.Namespace, payload: Any, lines: list[str]) -> None:
    if getattr(args, "json", False):
        json.dump(payload, sys.stdout, ensure_ascii=False, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        for line in lines:
            print(line)


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
    head = f"--- {m.id} {m.role}" + (f" · {m.model}" if m.model else "") + f" {when}"
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
        out.extend(body.splitlines() or [""])
    return out
