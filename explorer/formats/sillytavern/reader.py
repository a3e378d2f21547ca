"""SillyTavern chat files (JSONL).

The first line is usually a header (``user_name``, ``character_name``,
``create_date``, ``chat_metadata``); every other line is a message (``name``,
``is_user``, ``is_system``, ``send_date``, ``mes``, ``swipes``, ``swipe_id``,
``swipe_info``, ``extra``). A chat is linear, except that a message may carry
swipes: alternative answers the person flipped through. Each swipe becomes a
sibling under the same parent; the one ``swipe_id`` names holds the shown text
(``mes``) and is the one the following messages continue from.

``send_date`` is epoch seconds or milliseconds, ISO-8601, "January 24, 2023
1:24pm", or "2023-01-24@13h24m12s". The written forms carry no zone and are
read as UTC.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import as_text, finish, parse_time
from explorer.formats.jsonl import JsonlReader, peek_objects, peek_prefix, skipped_notes
from explorer.tree.model import Message, Part, Role

FORMAT = "sillytavern"
HEADER_KEYS = ("user_name", "character_name", "chat_metadata", "create_date")
META_KEYS = ("name", "is_system", "extra", "gen_started", "gen_finished", "force_avatar")
_HUMANIZED = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s(?:\s*(\d{1,3})ms)?"
)
_WRITTEN = ("%B %d, %Y %I:%M%p", "%b %d, %Y %I:%M%p", "%B %d, %Y %I:%M %p", "%B %d, %Y %H:%M")


def sniff(path: Path) -> bool:
    """A header line with user and character names, or a first message line."""
    try:
        heads = peek_objects(path, max_objects=1)
        raw = peek_prefix(path).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return False
    head = heads[0] if heads else None
    if not isinstance(head, dict):
        # A header line longer than the peek (a huge chat_metadata) still shows its start.
        return raw.startswith(b'{"user_name"') and b'"character_name"' in raw
    if "user_name" in head and "character_name" in head:
        return True
    return "mes" in head and "is_user" in head


def read(path: Path) -> Iterator[ImportedConversation]:
    """One conversation per chat file."""
    notes: list[str] = []
    conv = ImportedConversation(
        title=path.stem, source_format=FORMAT, messages=[], source_path=str(path), notes=notes
    )
    parent: str | None = None
    seen_any = False
    reader = JsonlReader(path)
    for lineno, obj in reader:
        if not seen_any and "mes" not in obj and any(k in obj for k in HEADER_KEYS):
            _header(conv, obj)
        elif "mes" in obj or "swipes" in obj:
            parent = _add_line(conv, lineno, obj, parent)
        else:
            conv.ignored_records["<not a message>"] += 1
            notes.append(f"line {lineno}: neither a header nor a message; skipped")
        seen_any = True
    notes[:0] = skipped_notes(reader.skipped)
    if not seen_any:
        raise FormatError(f"{path.name}: no SillyTavern records found")
    yield finish(conv, parent)


def _header(conv: ImportedConversation, header: dict[str, Any]) -> None:
    character = as_text(header.get("character_name"))
    if character:
        conv.title = f"Chat with {character}"
    conv.created_at = st_time(header.get("create_date"))
    conv.meta.update({k: header[k] for k in HEADER_KEYS if k in header})


def _add_line(
    conv: ImportedConversation, lineno: int, obj: dict[str, Any], parent: str | None
) -> str:
    """Add the message (and its swipes as siblings); return the key later lines continue."""
    role: Role = "user" if obj.get("is_user") is True else (
        "system" if obj.get("is_system") is True else "assistant"
    )
    key = f"line{lineno}"
    shown = as_text(obj.get("mes"))
    swipes = obj.get("swipes")
    if not isinstance(swipes, list) or len(swipes) < 2:
        conv.messages.append(_message(key, parent, role, shown, obj, None, lineno))
        return key
    chosen = obj.get("swipe_id")
    if not isinstance(chosen, int) or isinstance(chosen, bool) or not 0 <= chosen < len(swipes):
        matches = [j for j, s in enumerate(swipes) if as_text(s) == shown]
        conv.notes.append(
            f"line {lineno}: swipe_id {chosen!r} is not one of {len(swipes)} swipes; "
            "the shown text continues the chat"
        )
        chosen = matches[0] if matches else None
    if chosen is None:
        conv.messages.append(_message(key, parent, role, shown, obj, None, lineno))
    infos = obj.get("swipe_info")
    for j, swipe in enumerate(swipes):
        info = infos[j] if isinstance(infos, list) and j < len(infos) else None
        if j == chosen:
            conv.messages.append(_message(key, parent, role, shown, obj, j, lineno))
        else:
            source = info if isinstance(info, dict) else {}
            alt = _message(f"{key}.swipe{j}", parent, role, as_text(swipe), source, j, lineno)
            alt.source_meta.setdefault("name", obj.get("name"))
            conv.messages.append(alt)
    return key


def _message(
    key: str, parent: str | None, role: Role, text: str, obj: dict[str, Any],
    swipe: int | None, lineno: int,
) -> Message:
    meta: dict[str, Any] = {k: obj[k] for k in META_KEYS if obj.get(k) not in (None, {}, "")}
    meta["line"] = lineno
    if swipe is not None:
        meta["swipe_index"] = swipe
    extra = obj.get("extra")
    model = extra.get("model") if isinstance(extra, dict) else None
    return Message(
        id=key,
        parent_id=parent,
        role=role,
        parts=[Part("text", text)],
        created_at=st_time(obj.get("send_date")),
        model=model if isinstance(model, str) else None,
        source_id=None,
        source_meta=meta,
    )


def st_time(value: object) -> float | None:
    """Epoch seconds from any of the date forms SillyTavern has written."""
    parsed = parse_time(value)
    if parsed is not None or not isinstance(value, str):
        return parsed
    text = value.strip()
    match = _HUMANIZED.fullmatch(text)
    try:
        if match:
            y, mo, d, h, mi, s = (int(g) for g in match.groups()[:6])
            ms = int(match[7] or 0)
            return datetime(y, mo, d, h, mi, s, ms * 1000, tzinfo=UTC).timestamp()
        for form in _WRITTEN:
            try:
                return datetime.strptime(text, form).replace(tzinfo=UTC).timestamp()
            except ValueError:
                continue
    except (ValueError, OverflowError):
        return None
    return None
