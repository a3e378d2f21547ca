"""What the transcript shows, row by row, before any widget exists.

The view is virtual: it needs to know every row and a plausible height for
each one up front (to size the scroll bar), but builds widgets only for the
rows near the viewport, and reads message content only for those (V2). So
this module turns a path — skeleton entries, or full messages where they are
already at hand — plus the conversation's labels into plain rows (messages
and slim markers) and estimates their heights from sizes alone, cheaply
enough for 100,000 rows.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from explorer.store.reads_path import PathEntry
from explorer.tree.digest import digest_text
from explorer.tree.model import Message, Part

MarkerKind = Literal["compaction", "rewind", "explored", "context_start", "incomplete", "elided"]

COLLAPSED_LINES = 12
"""Tool output longer than this many lines is shown folded, with "show all N lines"."""


@dataclass(frozen=True)
class Marker:
    kind: MarkerKind
    title: str
    detail: str = ""


@dataclass(frozen=True)
class Row:
    """A message card, or a marker that follows (or, for context start, precedes) ``mid``.

    A message row always has its skeleton ``entry`` or its ``message`` (or both, once
    the content has been read); a marker row has a ``marker`` and neither.
    """

    mid: int
    message: Message | None = None
    marker: Marker | None = None
    entry: PathEntry | None = None

    @property
    def is_message(self) -> bool:
        return self.message is not None or self.entry is not None

    @property
    def is_pending(self) -> bool:
        """A message row whose content has not been read yet."""
        return self.message is None and self.entry is not None


def with_content(row: Row, message: Message) -> Row:
    """The row once its message has been read (an all-elided message becomes a marker)."""
    return _message_row(row.mid, message, row.entry)


def without_content(row: Row) -> Row:
    """The row with its content let go again (far from the viewport); skeleton rows only."""
    return Row(row.mid, entry=row.entry) if row.entry is not None else row


@dataclass
class PathInfo:
    """What the cards need to know about the path beyond their own message."""

    tool_names: dict[str, str] = field(default_factory=dict)
    checkpoint_labels: dict[int, list[str]] = field(default_factory=dict)
    notes: dict[int, list[str]] = field(default_factory=dict)  # notes, markers, stale (T6, T7)
    archived: frozenset[int] = frozenset()  # archived alternatives: out of ◀ ▶'s count
    subagents: Mapping[str, str] = field(default_factory=dict)  # spawning call id → agent name


def message_id(m: Message) -> int:
    """The store's integer id of a message read from it."""
    if not isinstance(m.id, int):
        raise TypeError(f"message id {m.id!r} is not a stored id")
    return m.id


def is_elided(part: Part) -> bool:
    return "elided" in part.meta or "dropped_image" in part.meta


def tool_names(path: Sequence[Message]) -> dict[str, str]:
    return {p.tool_use_id: p.tool_name or "tool"
            for m in path for p in m.parts if p.kind == "tool_use" and p.tool_use_id}


def entry_id(item: Message | PathEntry) -> int:
    return item.id if isinstance(item, PathEntry) else message_id(item)


def build_rows(
    path: Sequence[Message | PathEntry],
    *,
    rewinds: Sequence[dict[str, Any]] = (),
    compactions: Sequence[dict[str, Any]] = (),
    context_start: int | None = None,
    clean_tip: int | None = None,
) -> list[Row]:
    """Rows for ``path``: one per message, markers where the conversation's records point.

    ``path`` holds skeleton entries (content is read later, by window) or full messages.
    """
    last = entry_id(path[-1]) if path else None
    after = markers_after(rewinds, compactions, clean_tip, last)
    rows: list[Row] = []
    for m in path:
        mid = entry_id(m)
        if mid == context_start and rows:
            rows.append(Row(mid, marker=CONTEXT_START))
        rows.append(Row(mid, entry=m) if isinstance(m, PathEntry) else _message_row(mid, m))
        rows.extend(Row(mid, marker=mk) for mk in after.get(mid, ()))
    return rows


CONTEXT_START = Marker("context_start", "Active context starts here",
                       "Earlier messages stay in the tree but are no longer sent.")


def markers_after(
    rewinds: Sequence[dict[str, Any]], compactions: Sequence[dict[str, Any]],
    clean_tip: int | None, last: int | None,
) -> dict[int, list[Marker]]:
    """The markers that follow each message, from the conversation's records."""
    after: dict[int, list[Marker]] = {}
    for rec in compactions:
        after.setdefault(int(rec["message_id"]), []).append(compaction_marker(rec))
    for rec in rewinds:
        after.setdefault(int(rec["to_message_id"]), []).append(rewind_marker(rec))
        after.setdefault(int(rec["from_tip_id"]), []).append(explored_marker(rec))
    if clean_tip is not None and clean_tip != last:
        after.setdefault(clean_tip, []).append(Marker(
            "incomplete", "Last clean turn boundary",
            "The messages below end in the middle of a turn; resume and compaction start here.",
        ))
    return after


def _message_row(mid: int, m: Message, entry: PathEntry | None = None) -> Row:
    if m.parts and all(p.kind == "tool_result" and is_elided(p) for p in m.parts):
        lines = "\n".join(p.text for p in m.parts)
        return Row(mid, message=m, marker=Marker("elided", "Elided tool output", lines),
                   entry=entry)
    return Row(mid, message=m, entry=entry)


def compaction_marker(rec: dict[str, Any]) -> Marker:
    params = rec.get("params") or {}
    summary = str(rec.get("summary") or "").strip()
    bits = [summary] if summary else []
    if params:
        bits.append(json.dumps(params, ensure_ascii=False, sort_keys=True)[:300])
    return Marker("compaction", f"Compaction: {rec.get('kind', '?')}", "\n".join(bits))


def rewind_marker(rec: dict[str, Any]) -> Marker:
    label = rec.get("label") or "?"
    return Marker("rewind", f"Rewound to checkpoint ‘{label}’ after an exploration",
                  digest_text(rec.get("digest") or {}))


def explored_marker(rec: dict[str, Any]) -> Marker:
    label = rec.get("label") or "?"
    return Marker("explored", f"This exploration was left by a rewind to ‘{label}’",
                  digest_text(rec.get("digest") or {}))


@dataclass(frozen=True)
class Metrics:
    """Font measures the estimate scales by (pixels)."""

    line: int = 18
    char: float = 7.5
    mono_line: int = 16
    mono_char: float = 7.8


def _lines(text: str, per_line: int) -> int:
    return text.count("\n") + 1 + len(text) // max(per_line, 10)


def estimate_height(row: Row, width: int, fm: Metrics) -> int:
    """A height guess good enough to size the scroll bar; real cards replace it when built."""
    if row.marker is not None:
        return 40 + 14 * min(row.marker.detail.count("\n") + 1, 4)
    if row.message is None:
        assert row.entry is not None
        return estimate_entry_height(row.entry, width, fm)
    per_line = int(max(width - 40, 100) / fm.char)
    per_mono = int(max(width - 40, 100) / fm.mono_char)
    height = 48
    for p in row.message.parts:
        if p.kind == "text":
            height += _lines(p.text, per_line) * fm.line + 12
        elif p.kind == "thinking":
            height += 28
        elif p.kind == "image":
            height += 140
        elif p.kind == "tool_use":
            height += 28 + min(_lines(p.text, per_mono) + 2, 40) * fm.mono_line
        else:
            height += 56 + min(_lines(p.text, per_mono), COLLAPSED_LINES) * fm.mono_line
    return height


def estimate_entry_height(entry: PathEntry, width: int, fm: Metrics) -> int:
    """The same guess from the skeleton alone: part kinds and the characters they hold."""
    return estimate_sized(entry.kinds, entry.chars, width, fm)


def estimate_sized(kinds: tuple[str, ...], chars: int, width: int, fm: Metrics) -> int:
    return SizedHeights(width, fm).height(kinds, chars)


ARRAY_FROM = 2048
"""Rows from which heights and row tables are made in numpy's array steps."""


class SizedHeights:
    """:func:`estimate_sized` for many rows at one width and font.

    The characters are shared out evenly over a message's parts, so its height is a sum
    over how many parts of each kind it has: counted once per distinct tuple of kinds (a
    few hundred on a 100,000-message path), then each row is a few integer steps, where
    a loop over its kinds per row took most of a second off the main thread.
    """

    def __init__(self, width: int, fm: Metrics) -> None:
        self.per_line = max(int(max(width - 40, 100) / fm.char), 10)
        self.per_mono = max(int(max(width - 40, 100) / fm.mono_char), 10)
        self.fm = fm
        self._counts: dict[tuple[str, ...], tuple[int, int, int, int, int, int]] = {}

    def height(self, kinds: tuple[str, ...], chars: int) -> int:
        n, text, thinking, image, tool, other = self._count(kinds)
        share, fm = chars // n, self.fm
        height = 48 + thinking * 28 + image * 140
        if text:
            height += text * ((share // self.per_line + 1) * fm.line + 12)
        if tool:
            height += tool * (28 + min(share // self.per_mono + 3, 40) * fm.mono_line)
        if other:
            height += other * (56 + min(share // self.per_mono + 1, COLLAPSED_LINES)
                               * fm.mono_line)
        return height

    def column(self, kind_sets: Sequence[tuple[str, ...]], kind_at: array[int],
               chars: array[int]) -> array[int]:
        """The height of every entry of a skeleton's columns (its distinct tuples of kinds,
        each entry's index into them, its characters), as :meth:`height` gives it; for a
        long path in a few array steps (a call per row took a quarter of a second for
        100,000 rows), for a short one without loading numpy (a tenth of a second, which
        the path's tip would wait for)."""
        if len(kind_at) < ARRAY_FROM:
            return array("i", map(self.height, map(kind_sets.__getitem__, kind_at), chars))
        return self._array_column(kind_sets, kind_at, chars)

    def _array_column(self, kind_sets: Sequence[tuple[str, ...]], kind_at: array[int],
                      chars: array[int]) -> array[int]:
        import numpy as np  # not before the window's first frame

        fm = self.fm
        counts = np.array([self._count(k) for k in kind_sets] or [(1, 0, 0, 0, 0, 0)],
                          dtype=np.int64).reshape(-1, 6)
        n, text, thinking, image, tool, other = counts[np.frombuffer(kind_at, np.uint32)].T
        share = np.frombuffer(chars, np.int64) // n
        mono = share // self.per_mono
        height = (48 + thinking * 28 + image * 140
                  + text * ((share // self.per_line + 1) * fm.line + 12)
                  + tool * (28 + np.minimum(mono + 3, 40) * fm.mono_line)
                  + other * (56 + np.minimum(mono + 1, COLLAPSED_LINES) * fm.mono_line))
        return array("i", height.astype(np.int32).tobytes())

    def _count(self, kinds: tuple[str, ...]) -> tuple[int, int, int, int, int, int]:
        counts = self._counts.get(kinds)
        if counts is None:
            shown = kinds or ("text",)
            known = ("text", "thinking", "image", "tool_use")
            text, thinking, image, tool = (shown.count(k) for k in known)
            counts = (len(shown), text, thinking, image, tool,
                      sum(k not in known for k in shown))
            self._counts[kinds] = counts
        return counts


def entry_role(entry: PathEntry) -> str:
    """Tool output travels as a user message; it is shown as what it is."""
    if entry.kinds and all(k == "tool_result" for k in entry.kinds):
        return "tool"
    return entry.role

