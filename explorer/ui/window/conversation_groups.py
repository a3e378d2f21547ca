"""Which rows the conversation list shows, in which order, under which group headers.

Plain Python over the model's columns (no Qt): the filter keeps the rows whose text holds
the typed words, a sort orders them, and a grouping puts each under its project folder
or its source, groups ordered by their first row (the newest, sorted by date). A group
a person collapsed keeps its header and hides its rows. At 25,000 conversations each
step is a pass over flat lists: a few milliseconds a keystroke.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from explorer.ui.window.conversation_model import ListRows, folder_name
from explorer.ui.window.format_badges import format_name

GROUPINGS: dict[str, str] = {  # key -> label of the choice
    "none": "No groups",
    "project": "By project",
    "source": "By source",
}
NO_FOLDER = "No project folder"


@dataclass(frozen=True)
class GroupRow:
    """A group's header: what it is, how many rows it holds now and whether they show."""

    key: str  # the folder or the source format
    label: str
    detail: str  # the folder's whole path; empty for a source
    count: int  # conversations under it that the filter keeps
    total: int  # conversations under it
    collapsed: bool
    source: str  # the format whose badge the header shows ("" for a folder)


@dataclass
class Arrangement:
    """The list as shown: ``rows[i] >= 0`` is the model's row, ``-k-1`` the header of
    ``groups[k]``."""

    rows: list[int] = field(default_factory=list)
    groups: list[GroupRow] = field(default_factory=list)


def group_keys(rows: ListRows, grouping: str) -> list[str]:
    """Each conversation's group under ``grouping`` (one shared string per group)."""
    cols = rows.columns
    return cols.folders if grouping == "project" else cols.formats


def label_of(grouping: str, key: str) -> tuple[str, str, str]:
    """A group's name, the line under it and the source whose badge it wears."""
    if grouping == "source":
        return format_name(key or None), "", key
    if not key:
        return NO_FOLDER, "", ""
    home = os.path.expanduser("~")
    shown = "~" + key[len(home):] if home not in ("", "/", "~") and (
        key == home or key.startswith(home + os.sep)) else key
    return folder_name(key), shown, ""


def sort_order(rows: ListRows, key: str) -> list[int]:
    """The model's rows in the order of the sort ``key`` (ties show the newer first)."""
    cols, n = rows.columns, len(rows.shown)
    if key not in ("title", "size"):
        return list(range(n))  # the store reads newest first, ties by the higher id
    # Two sorts without a key tuple per row (stable: the second keeps the first's order
    # among equals, reverse=True included): ties by the higher id first.
    newest_id_first = sorted(range(n), key=cols.ids.__getitem__, reverse=True)
    if key == "title":
        folded = [s.casefold() for s in rows.shown]
        return sorted(newest_id_first, key=folded.__getitem__)
    return sorted(newest_id_first, key=cols.counts.__getitem__, reverse=True)


def kept(order: list[int], keys: Sequence[str], needle: str) -> list[int]:
    """The rows of ``order`` whose text holds ``needle`` (already case-folded)."""
    if not needle:
        return order
    return [r for r in order if needle in keys[r]]


def arrange(rows: ListRows, order: list[int], grouping: str,
            collapsed: set[tuple[str, str]], *, by_label: bool = False,
            totals: dict[str, int] | None = None) -> Arrangement:
    """``order`` (already filtered) under its group headers; ``collapsed`` holds
    ``(grouping, key)`` pairs. Groups come in the order of their first row, or by name
    with ``by_label``."""
    if grouping == "none":
        return Arrangement(order, [])
    keys = group_keys(rows, grouping)
    buckets: dict[str, list[int]] = {}
    for r in order:
        bucket = buckets.get(keys[r])
        if bucket is None:
            buckets[keys[r]] = [r]
        else:
            bucket.append(r)
    names = {key: label_of(grouping, key) for key in buckets}
    chosen = sorted(buckets, key=lambda k: (names[k][0].casefold(), k)) if by_label \
        else list(buckets)
    out = Arrangement()
    for key in chosen:
        members = buckets[key]
        label, detail, source = names[key]
        shut = (grouping, key) in collapsed
        out.groups.append(GroupRow(key, label, detail, len(members),
                                   (totals or {}).get(key, len(members)), shut, source))
        out.rows.append(-len(out.groups))
        if not shut:
            out.rows.extend(members)
    return out


def totals_of(rows: ListRows, grouping: str) -> dict[str, int]:
    """How many conversations each group holds, filter or not."""
    counts: dict[str, int] = {}
    if grouping == "none":
        return counts
    for key in group_keys(rows, grouping):
        counts[key] = counts.get(key, 0) + 1
    return counts
