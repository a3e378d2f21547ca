"""Lone surrogates (``\\ud83d``: what JavaScript writes when text is cut inside an
emoji) replaced with U+FFFD before a conversation is stored.

JSON decoders accept such escapes, but the text cannot be encoded as UTF-8, so
storing it fails. Every string of an imported conversation is checked; each
replacement is counted and the count named in the conversation's notes.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from typing import Any

from explorer.formats.base import ImportedConversation

_LONE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def repair_surrogates(ic: ImportedConversation) -> int:
    """Replace lone surrogates everywhere in ``ic``; answers how many were replaced.

    The messages of a lazily read conversation hold only openings now; their
    content source repairs (and counts) their full text when it is read.
    """
    if ic.no_lone_surrogates:  # its reader saw every line: none escaped a surrogate
        return 0
    counter = [0]
    lazy = ic.content is not None
    messages, ic.messages = ic.messages, []
    try:
        _walk_object(ic, counter)
    finally:
        ic.messages = messages
    _clean(messages, [0] if lazy else counter)
    if counter[0]:
        ic.notes.append(repairs_note(counter[0]))
    return counter[0]


def repairs_note(count: int) -> str:
    """The conversation's note for ``count`` lone surrogates replaced."""
    return f"lone surrogates (text cut inside an emoji) replaced with U+FFFD in {count} place(s)"


class RepairTally:
    """The lone surrogates replaced in a lazily read conversation so far, named in one of
    its ``notes``, which is updated as later chunks of its content find more."""

    def __init__(self, notes: list[str]) -> None:
        self.notes = notes
        self.count = 0
        self._at: int | None = None

    def add(self, found: int) -> None:
        if not found:
            return
        self.count += found
        if self._at is None:
            self._at = len(self.notes)
            self.notes.append(repairs_note(self.count))
        else:
            self.notes[self._at] = repairs_note(self.count)


def repair_in(obj: Any) -> int:
    """Replace lone surrogates in a dataclass (a message) in place; answers how many."""
    counter = [0]
    _walk_object(obj, counter)
    return counter[0]


def _clean(value: Any, counter: list[int]) -> Any:
    if isinstance(value, str):
        if _LONE.search(value) is None:
            return value
        fixed, n = _LONE.subn(REPLACEMENT, value)
        counter[0] += n
        return fixed
    if isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = _clean(item, counter)
        return value
    if isinstance(value, dict):
        bad_keys = False
        for key, item in list(value.items()):
            value[key] = _clean(item, counter)
            bad_keys = bad_keys or (isinstance(key, str) and _LONE.search(key) is not None)
        if bad_keys:
            items = [(_clean(k, counter), v) for k, v in value.items()]
            value.clear()
            value.update(items)
        return value
    if is_dataclass(value) and not isinstance(value, type):
        _walk_object(value, counter)
    return value


def _walk_object(obj: Any, counter: list[int]) -> None:
    for name in _field_names(type(obj)):
        current = getattr(obj, name)
        if isinstance(current, str | list | dict) or is_dataclass(current):
            cleaned = _clean(current, counter)
            if cleaned is not current:
                setattr(obj, name, cleaned)


def _field_names(kind: type) -> tuple[str, ...]:
    """A dataclass's field names, looked up once per class (``fields`` per message was a
    fifth of this walk's time on a 100,000-message session)."""
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in fields(kind))
    return names


_FIELDS: dict[type, tuple[str, ...]] = {}
