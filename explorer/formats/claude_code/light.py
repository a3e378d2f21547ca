"""The first pass of a huge session holds each message light: the kinds, tool ids and
flags the tree is shaped by, and a prompt's opening for its preview and title. The content
is read again by offset when the store writes the message (:mod:`.content`)."""

from __future__ import annotations

import sys
from typing import Any, NoReturn, Protocol

from explorer.formats.claude_code.blocks import LIGHT_FIELDS
from explorer.tree.model import Part


def interned(text: str | None) -> str | None:
    """One string for a model name every line repeats."""
    return sys.intern(text) if text is not None else None


class RecentIds:
    """One string object for an id written twice a few lines apart: a line's uuid and
    its child's ``parentUuid``, a tool call's id and its result's. A session of 100,000
    messages holds hundreds of thousands of them while its tree is shaped; the ids seen
    last are enough to find nearly every repeat, and the table stays small."""

    KEEP = 512

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def same(self, text: str | None) -> str | None:
        if text is None:
            return None
        found = self._seen.get(text)
        if found is not None:
            return found
        self._seen[text] = text
        if len(self._seen) > self.KEEP:
            del self._seen[next(iter(self._seen))]
        return text


class SharedEmpty(dict[str, Any]):
    """The one empty metadata dict the light messages and parts of a huge session share.

    An empty dict each cost a 100,000-message session about 16 MB. It refuses to be
    written: whoever adds a key takes a dict of its own first (:func:`own_meta`)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("shared empty metadata is read-only: take a dict of its own first")

    __setitem__ = __delitem__ = setdefault = update = pop = popitem = clear = _refuse
    __ior__ = _refuse


EMPTY = SharedEmpty()


def own_meta(holder: _HasMeta) -> dict[str, Any]:
    """``holder.meta``, made its own first if it is the shared empty dict."""
    if holder.meta is EMPTY:
        holder.meta = {}
    return holder.meta


class _HasMeta(Protocol):
    meta: dict[str, Any]


def light_meta(entry: dict[str, Any]) -> dict[str, Any]:
    """The line metadata shaping the tree reads, taken from the line's ``entry``; the rest
    is read again when the message is written (``record_lines.line_meta`` of the same line).

    Only what is set: most messages keep the shared empty dict (the line number is
    :attr:`Node.line`, and the content locator keeps it)."""
    kept = {k: entry[k] for k in LIGHT_FIELDS
            if entry.get(k) is not None and entry[k] is not False}
    return kept or EMPTY


def light_parts(parts: list[Part], before: list[Part] | None = None, *,
                keep_text: bool = False, ids: RecentIds | None = None) -> list[Part]:
    """``parts`` (just read from a line, nobody else's) made light in place: without their
    content; a prompt (``keep_text``) keeps the opening of the part its preview and the
    title are made from. In place: a part made anew for each doubled that part of the
    light pass.

    Kinds and tool ids stay (tool results are chained by them, turns are cut by
    them); the opening is the first :data:`LIGHT_TEXT` characters. ``before`` are
    the light parts earlier lines of the same message gave.
    """
    before = before or []
    pick = _preview_index([*before, *parts]) if keep_text else None
    pick = pick - len(before) if pick is not None and pick >= len(before) else None
    same = ids.same if ids is not None else _as_is
    for i, p in enumerate(parts):
        p.text = _opening(p.text) if i == pick else ""
        p.tool_name = interned(p.tool_name)
        p.tool_use_id = same(p.tool_use_id)
        p.data = None
        p.meta = EMPTY
    return parts


def _as_is(text: str | None) -> str | None:
    return text


LIGHT_TEXT = 320
"""Characters kept of the previewed part: all a preview (and a title) reads of it."""


def _preview_index(parts: list[Part]) -> int | None:
    for i, p in enumerate(parts):
        if p.kind == "text" and p.text and not p.text.isspace():
            return i
    for i, p in enumerate(parts):
        if p.kind in ("tool_use", "tool_result", "image", "thinking"):
            return i
    return None


def _opening(text: str) -> str:
    head = text[:LIGHT_TEXT]
    if head.isspace() and not text.isspace():  # the title reads past leading blank lines
        return head + text.lstrip()[:LIGHT_TEXT]
    return head
