"""Where a string of the middle lands on the snapshot pages, and whether it reads back (L8).

The pages are laid out by the renderer's own row layout (``snapshot_render``), so the page and
line given here are the ones drawn: the layout is run again (no pixels are drawn) and the start
of every message's text run is recorded; a string is found in its message's runs and counted
forward in cells. Rows a character drawn two cells wide shortens make the line approximate
there; plain text lands exactly.

No OCR runs in the product, so "read back exactly" is a proxy, stated here as the rule it is:
every character of the string is drawn by the page's own font (not a fallback glyph or a box),
and its glyph differs from every other printable ASCII glyph of that font at that cell by at
least ``DISTINCT_PIXELS`` pixels. On the 5x8 cell ``0``, ``a``, ``d``, ``h``, ``n``, ``o`` and
ten capitals miss that bar (two pixels from a neighbour), so a hex id on a 5x8 page does not count
as read back (the benchmarks' OCR exact-id recall on those pages is near 0 %,
tests/benchmarks/RESULTS.md); on the 6x13 cell only ``l I O Q ! |`` miss it.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from explorer.compaction.glyph_atlas import glyph_atlas
from explorer.compaction.page_geometry import PageGeometry
from explorer.compaction.snapshot_render import _Layout, entries_from_message, normalize, to_entries
from explorer.tree.model import Message

DISTINCT_PIXELS = 3
ROWS_HELD = 4096  # rows laid out before they are dropped (only their count is needed)
_PRINTABLE = string.printable[:94]  # ASCII letters, digits and punctuation, no whitespace


@cache
def legible_chars(font: str, advance: int, pitch: int) -> frozenset[str]:
    """The characters whose glyph no other printable ASCII glyph comes near (the proxy)."""
    atlas = glyph_atlas(font, advance, pitch)
    covered = sorted(c for c in atlas.font.covered if c != " ")
    cells = atlas.cells[atlas.lut[[ord(c) for c in covered]]].astype(np.int16)
    ascii_at = [i for i, c in enumerate(covered) if c in _PRINTABLE]
    flat = cells.reshape(len(covered), -1)
    ref = flat[ascii_at]
    out = {" "}
    for i, char in enumerate(covered):
        distance = np.abs(ref - flat[i]).sum(axis=1)
        distance = distance[distance > 0] if char in _PRINTABLE else distance
        if not len(distance) or int(distance.min()) >= DISTINCT_PIXELS:
            out.add(char)
    return frozenset(out)


@dataclass(frozen=True)
class Place:
    """A page (0-based, of all pages drawn) and a line on it (1-based)."""

    page: int
    line: int


def _escaped(text: str) -> str:
    """``text`` as a tool call's JSON input holds it (a command's quotes as ``\\"``)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


class PageIndex:
    """The pages' row layout for one middle: where each message's text runs start.

    Only each run's starting row and column are kept (rows are dropped as they fill), so a
    long middle is laid out in bounded memory; ``place`` reads the text from the message again.
    """

    def __init__(self, middle: Sequence[Message], geometry: PageGeometry) -> None:
        self.geometry = geometry
        atlas = glyph_atlas(geometry.font, geometry.cell_width, geometry.cell_height)
        layout = _Layout(geometry.columns, atlas, geometry.spaced_marks)
        self._starts: dict[str, list[tuple[int, int]]] = {}
        done = 0
        for entry in to_entries(middle):
            row, col = done + len(layout.rows), layout._col  # the renderer's own cursor
            self._starts.setdefault(entry.message_id, []).append((row, col + (1 if col else 0)))
            layout.add(entry)
            if len(layout.rows) > ROWS_HELD:
                done += len(layout.rows)
                layout.rows.clear()
        self.rows = done + len(layout.finish())
        self._legible = legible_chars(geometry.font, geometry.cell_width, geometry.cell_height)

    @property
    def pages(self) -> int:
        return -(-self.rows // self.geometry.rows)

    def place(self, message: Message, text: str) -> Place | None:
        """Where ``text`` first lands among ``message``'s runs (as written, or JSON-escaped as
        a tool call's input holds it), or None when it is not there."""
        marks = self.geometry.spaced_marks
        needles = dict.fromkeys((normalize(text, marks), normalize(_escaped(text), marks)))
        starts = self._starts.get(str(message.id), [])
        for (row, col), entry in zip(starts, entries_from_message(message), strict=False):
            drawn = normalize(entry.text, marks)
            at = next((i for i in map(drawn.find, needles) if i >= 0), -1)
            if at >= 0:
                row += (col + at) // self.geometry.columns
                return Place(row // self.geometry.rows, row % self.geometry.rows + 1)
        return None

    def reads_back(self, text: str) -> bool:
        """True when every character of ``text`` meets the proxy (see the module's text)."""
        return set(normalize(text, self.geometry.spaced_marks)) <= self._legible
