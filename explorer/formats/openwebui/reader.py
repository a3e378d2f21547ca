"""Open WebUI chat exports: an array of chats (or one chat) whose
``chat.history.messages`` maps ids to messages with ``parentId`` and whose
``currentId`` is the tip. The tree comes from ``parentId`` alone; the
``childrenIds`` lists are not trusted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.json_stream import (
    Element,
    carry_notes,
    duplicate_keys,
    iter_elements,
)
from explorer.formats.openwebui.content import (
    content_parts,
    image_part,
    obj,
    output_parts,
    text_of,
)
from explorer.tree.model import Message, Part, Role, Usage
from explorer.tree.paths import newest_leaf
from explorer.tree.repair import repair_tree

FORMAT = "openwebui"
PEEK_BYTES = 64 * 1024
_HISTORY = re.compile(rb'"history"\s*:\s*\{')
_TREE_KEY = re.compile(rb'"(?:currentId|parentId|childrenIds)"\s*:')
_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant"}
_MESSAGE_META = ("done", "error", "modelName", "modelIdx", "annotation", "status", "merged")
_CHAT_META = ("updated_at", "archived", "pinned", "folder_id", "share_id", "user_id")


def sniff(path: Path) -> bool:
    """True when the content looks like an Open WebUI export (names are not trusted)."""
    try:
        with path.open("rb") as f:
            head = f.read(PEEK_BYTES)
    except OSError:
        return False
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return start in (b"[", b"{") and bool(_HISTORY.search(head) and _TREE_KEY.search(head))


def read(path: Path) -> Iterator[ImportedConversation]:
    """Yield each chat; skipped or repaired parts are listed in its notes."""
    yield from carry_notes(_items(path), path.name)


def _items(path: Path) -> Iterator[ImportedConversation | str]:
    if not path.is_file():
        raise FormatError(f"{path}: not a file")
    with path.open("rb") as fp:
        for el in iter_elements(fp):
            item = _convert(el, path)
            del el  # the decoded JSON can go before the record is used
            yield item


def _convert(el: Element, path: Path) -> ImportedConversation | str:
    """The record for one array element, or a note saying why there is none."""
    where = f"{path.name}: chat #{el.index + 1} (character {el.offset})"
    if el.error is not None:
        return f"{where}: {el.error}"
    if not isinstance(el.value, dict):
        return f"{where}: not an object ({type(el.value).__name__}); skipped"
    try:
        chat = convert_chat(el.value, str(path))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
        return f"{where}: skipped: {e}"
    if el.note is not None:
        chat.notes.append(f"{path.name}: {el.note}")
    return chat


def epoch(value: object) -> float | None:
    """Seconds; values in milliseconds or nanoseconds are scaled down."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        t = float(value)
    except OverflowError:
        return None
    if not math.isfinite(t):
        return None
    while t > 1e11:
        t /= 1000.0
    return t


def convert_chat(item: dict[str, Any], source_path: str) -> ImportedConversation:
    """One exported chat (or a bare ``chat`` object) as an imported record."""
    chat = obj(item.get("chat")) if "chat" in item else item
    messages = obj(chat.get("history")).get("messages")
    if not isinstance(messages, dict):
        raise ValueError("it has no chat.history.messages object")
    notes = [f"message {k!r} appears twice: kept the first" for k in duplicate_keys(messages)]
    converted: list[Message] = []
    for key, raw in messages.items():
        if not isinstance(raw, dict):
            notes.append(f"message {key!r} is not an object ({type(raw).__name__}); skipped")
            continue
        try:
            converted.append(convert_message(key, raw, notes))
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            notes.append(f"message {key!r} could not be read ({e}); skipped")
    repaired = repair_tree(converted)
    notes.extend(repaired.notes)
    tip = _tip(obj(chat.get("history")).get("currentId"), repaired.messages, notes)
    meta = {k: item[k] for k in _CHAT_META if item.get(k) is not None}
    if isinstance(chat.get("models"), list):
        meta["models"] = chat["models"]
    return ImportedConversation(
        title=text_of(item.get("title")) or text_of(chat.get("title")) or "Untitled",
        source_format=FORMAT,
        messages=repaired.messages,
        tip=tip,
        source_id=text_of(item.get("id")) or text_of(chat.get("id")) or None,
        source_path=source_path,
        created_at=epoch(item.get("created_at")) or epoch(chat.get("timestamp")),
        meta=meta,
        notes=notes,
    )


def convert_message(key: str, raw: dict[str, Any], notes: list[str]) -> Message:
    source_role = text_of(raw.get("role"))
    meta: dict[str, Any] = {k: raw[k] for k in _MESSAGE_META if raw.get(k) is not None}
    if source_role not in _ROLES:
        meta["source_role"] = raw.get("role")
    if raw.get("done") is False:
        meta["in_progress"] = True
    parent = raw.get("parentId")
    if parent is not None and not isinstance(parent, str):
        notes.append(f"message {key!r}: parentId {parent!r} is not an id; made it a root")
        parent = None
    output = raw.get("output")
    if isinstance(output, list) and output:
        parts = output_parts(output, key)
        meta["parts_from"] = "output"
    else:
        parts = content_parts(raw.get("content"), key)
    parts.extend(_file_parts(raw.get("files"), meta))
    model = text_of(raw.get("model")) or None
    return Message(
        id=key,
        parent_id=parent,
        role=_ROLES.get(source_role, "assistant"),
        parts=parts,
        created_at=epoch(raw.get("timestamp")),
        model=model,
        usage=_usage(obj(raw.get("usage")) or obj(raw.get("info"))),
        source_id=text_of(raw.get("id")) or key,
        source_meta=meta,
    )


def _file_parts(files: object, meta: dict[str, Any]) -> list[Part]:
    """Inline images become image parts; other attachments are listed in the metadata."""
    parts: list[Part] = []
    for f in files if isinstance(files, list) else []:
        d = obj(f)
        url = text_of(d.get("url"))
        if d.get("type") == "image" or url.startswith("data:image/"):
            name = text_of(d.get("name"))
            parts.append(image_part(url, {"file_name": name} if name else {}))
        else:
            listed = {k: d[k] for k in ("type", "name", "id", "url", "size") if k in d}
            meta.setdefault("files", []).append(listed)
    return parts


def _usage(d: dict[str, Any]) -> Usage | None:
    pairs = (
        ("input_tokens", ("input_tokens", "prompt_tokens", "prompt_eval_count")),
        ("output_tokens", ("output_tokens", "completion_tokens", "eval_count")),
    )
    counts: dict[str, int] = {}
    for name, keys in pairs:
        for k in keys:
            v = d.get(k)
            if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 63:
                counts[name] = v
                break
    return Usage(**counts) if counts else None


def _tip(current: object, messages: list[Message], notes: list[str]) -> Hashable | None:
    by_id = {m.id: m for m in messages}
    if isinstance(current, str) and current in by_id:
        return current
    if not messages:
        return None
    notes.append(f"currentId {current!r} is not a message; the tip is the newest leaf instead")
    return newest_leaf(messages)
