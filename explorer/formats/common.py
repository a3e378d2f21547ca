"""Small helpers every importer shares: timestamps, text coercion, images, the final repair."""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Hashable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.tree.model import Message, Part
from explorer.tree.paths import message_path
from explorer.tree.repair import repair_tree
from explorer.tree.secrets import masked
from explorer.tree.turns import last_clean_boundary


def json_object(path: Path, what: str) -> dict[str, Any]:
    """The JSON object a file holds; a damaged file, or one holding another value, is a
    :class:`FormatError` naming it (``what``: "a Gemini CLI chat")."""
    try:
        with path.open("rb") as handle:
            data = json.load(handle)
    except (ValueError, RecursionError) as exc:
        raise FormatError(f"{path.name}: not valid JSON ({str(exc).split(':')[0]})") from exc
    if not isinstance(data, dict):
        raise FormatError(f"{path.name}: {what} is a JSON object")
    return data


def parse_time(value: object) -> float | None:
    """Epoch seconds from epoch seconds/milliseconds or an ISO-8601 string."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        number = float(value)
        if not math.isfinite(number) or number < 0:
            return None
        return number / 1000.0 if number > 1e11 else number
    if isinstance(value, str) and value.strip():
        text = value.strip()
        try:
            return parse_time(float(text))
        except ValueError:
            pass
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.timestamp()
    return None


def as_text(value: object) -> str:
    """Text as the source meant it: strings as they are, other JSON re-encoded."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def image_part(data: object, media_type: object, notes: list[str], where: str) -> Part:
    """An image part from base64 text; undecodable data becomes a visible marker."""
    mime = media_type if isinstance(media_type, str) else None
    if isinstance(data, str):
        try:
            return Part("image", data=base64.b64decode(data, validate=False), media_type=mime)
        except (binascii.Error, ValueError):
            pass
    notes.append(f"{where}: image data is not base64; kept a marker instead")
    return Part("text", "[image: undecodable data]", media_type=mime)


def finish(conv: ImportedConversation, tip: Hashable | None) -> ImportedConversation:
    """Repair the tree (T5), settle the tip and mark a session ending mid-turn (P3)."""
    repaired = repair_tree(conv.messages)
    conv.messages = repaired.messages
    conv.notes.extend(repaired.notes)
    by_id = {m.id: m for m in conv.messages}
    if tip is not None and tip not in by_id:
        conv.notes.append(f"tip {tip!r} is not a message; used the last message instead")
        tip = None
    if tip is None and conv.messages:
        tip = conv.messages[-1].id
    conv.tip = tip
    kept = [c for c in conv.checkpoints if c.message_key in by_id]
    for c in conv.checkpoints:
        if c.message_key not in by_id:
            conv.notes.append(f"label {c.label!r}: target {c.message_key!r} is missing; dropped")
    conv.checkpoints = kept
    if conv.context_start is not None and conv.context_start not in by_id:
        conv.context_start = None
    if tip is not None:
        path = message_path(by_id, tip)
        conv.incomplete = conv.incomplete or last_clean_boundary(path) != len(path) - 1
    return conv


def preview_title(messages: list[Message], fallback: str) -> str:
    """The first prompt's opening words, for sources without a title; derived for display,
    so a secret in them is masked (R1)."""
    for m in messages:
        if m.is_prompt and m.text.strip():
            line = m.text.strip().splitlines()[0]
            return masked(line[:400])[:80]
    return fallback
