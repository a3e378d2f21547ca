"""Everything an export for sharing writes, redacted: not only the messages' text (SPEC R1).

A markdown or agent export also carries the title, the conversation's metadata (working
directory, model settings, the source's own fields), the checkpoint labels, each message's
model name and source fields, and every part's metadata (image URLs and names, tool titles).
A key pasted into any of them would leave with the file, so each string is scanned; only the
native export (a backup) and the opaque values a provider verifies (signatures, ciphertext)
are left as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from explorer.tree import secrets
from explorer.tree.model import Message

# Header fields that are not text anyone typed: times, the format's own name.
_PLAIN_HEADER = frozenset({"created_at", "source_format", "forked_from"})


def redact_export(messages: Sequence[Message], header: dict[str, Any],
                  pixels: secrets.PixelReader | None = None
                  ) -> tuple[list[Message], list[secrets.Finding]]:
    """The messages with every written string (and, with a ``pixels`` reader, every image's
    picture) redacted, ``header`` redacted in place, and what was found."""
    out, found = secrets.redact_messages(messages, pixels)
    out = [_redact_fields(m, found) for m in out]
    for key in [k for k in header if k not in _PLAIN_HEADER]:
        value, kinds = secrets.redact_value(header[key])
        if kinds:
            header[key] = value
            where = "checkpoint labels" if key == "checkpoints" else f"conversation {key}"
            found += [secrets.Finding(k, where=where) for k in kinds]
    return out, found


def _redact_fields(m: Message, found: list[secrets.Finding]) -> Message:
    """The message's own fields beside its parts: model, source id, source fields."""
    changes: dict[str, Any] = {}
    for name in ("model", "source_id", "source_meta"):
        value, kinds = secrets.redact_value(getattr(m, name))
        if kinds:
            changes[name] = value
            found += [secrets.Finding(k, m.id, None, name.replace("_", " ")) for k in kinds]
    return replace(m, **changes) if changes else m


def export_notes(messages: Sequence[Message], found: Sequence[secrets.Finding]) -> list[str]:
    """What the export notes say: what was redacted, and the images no one read."""
    notes = [secrets.describe(found)] if found else []
    unread = secrets.unscanned_images(messages)
    return notes + ([secrets.unscanned_note(unread)] if unread else [])
