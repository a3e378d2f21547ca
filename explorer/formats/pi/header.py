"""Where a session's header is: pi's first line, or oh-my-pi's second, after a title slot.

oh-my-pi opens every session file with a fixed-width ``title`` line (``{"type": "title",
"v": 1, "title", "source"?, "updatedAt", "pad"}``), padded so the current title can be
rewritten in place without moving a byte of what follows; the ``session`` header comes
after it. A rename also appends a ``title_change`` entry, so a sync reading on from an
offset sees the new name without looking back at the slot.
"""

from __future__ import annotations

from typing import Any

SLOT = "title"


def is_slot(value: object) -> bool:
    """oh-my-pi's title slot line."""
    return isinstance(value, dict) and value.get("type") == SLOT and "pad" in value


def is_header(value: object) -> bool:
    """A ``session`` header line carrying an id, as both pi and oh-my-pi write it."""
    return (
        isinstance(value, dict)
        and value.get("type") == "session"
        and isinstance(value.get("id"), str)
        and ("cwd" in value or "version" in value)
    )


def slot_title(value: dict[str, Any]) -> str | None:
    """The title a slot holds, None for an empty one."""
    title = value.get("title")
    return title.strip() or None if isinstance(title, str) else None
