"""Render source text into dense PNG pages of bitmap glyphs (SPEC §5, rules L3, L4, L5).

Pages are drawn only from text — messages or (role, id, text) entries — never from images (L4):
a page made from an earlier page's pixels would lose a generation of glyphs on every pass. Each
message opens with a marker such as ``[user #12]`` or ``[tool_result #13 error]`` so the model can
name what it refers back to. Text is reflowed into full rows, newlines drawn as ``¶``, because a
short ragged line is billed as a full row of pixels. The same text and geometry always give the
same PNG bytes (bitmap glyphs, no hinting, no metadata, fixed compression; the deflate stream is the
installed zlib's). A character no font can draw is drawn as a hollow box and listed in the result,
never dropped.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from explorer.compaction import fonts
from explorer.compaction.glyph_atlas import GlyphAtlas, encode_png, glyph_atlas
from explorer.compaction.image_cost import text_tokens
from explorer.compaction.page_geometry import PageGeometry
from explorer.tree.model import Message, Part

NEWLINE_MARK = "¶"
TAB_SIZE = 4
_CONTROLS = {c: 0x2400 + c for c in range(0x20)} | {0x7F: 0x2421}
_NEWLINE_RUN = re.compile(r" ?\n+ ?")
_TRANSLATE = _CONTROLS | {0x0A: ord(NEWLINE_MARK), 0x2028: ord(NEWLINE_MARK), 0x2029: 0x00B6}


@dataclass(frozen=True)
class SourceEntry:
    """One run of source text, already carrying its marker, and the message it came from."""

    message_id: str
    text: str


@dataclass(frozen=True)
class MissingChar:
    """A character no bundled font can draw: drawn as a box, counted, and where it first was."""

    char: str
    count: int
    first_message_id: str

    @property
    def codepoint(self) -> str:
        return f"U+{ord(self.char):04X}"


@dataclass(frozen=True)
class Page:
    """One rendered page and what it holds."""

    png: bytes
    width: int
    height: int
    rows: int
    chars: int
    first_message_id: str | None
    last_message_id: str | None
    image_tokens: int

    @property
    def text_tokens(self) -> int:
        """What the page's characters would cost as plain text (about 4 per token)."""
        return text_tokens(self.chars)


@dataclass(frozen=True)
class Snapshot:
    """The pages of one rendering and the characters that could not be drawn."""

    geometry: PageGeometry
    pages: tuple[Page, ...]
    missing: tuple[MissingChar, ...]

    @property
    def chars(self) -> int:
        return sum(p.chars for p in self.pages)

    @property
    def image_tokens(self) -> int:
        return sum(p.image_tokens for p in self.pages)


Source = Message | SourceEntry | tuple[str, Hashable, str]


def _part_text(message: Message, part: Part, first: bool) -> str:
    mid = f"#{message.id}"
    if part.kind == "tool_use":
        return f"[tool_use {part.tool_name or '?'} {mid}] {part.text}"
    if part.kind == "tool_result":
        return f"[tool_result {mid}{' error' if part.is_error else ''}] {part.text}"
    if part.kind == "image":
        size = len(part.data) if part.data is not None else 0
        return f"[image {part.media_type or 'unknown'} {size} bytes {mid}]"
    if part.kind == "thinking":
        return f"[{message.role} {mid} thinking] {part.text}"
    return f"[{message.role} {mid}] {part.text}" if first else part.text


def entries_from_message(message: Message) -> list[SourceEntry]:
    """A message as marked text runs; images become a marker naming kind and size (L4)."""
    mid = str(message.id)
    if not message.parts:
        return [SourceEntry(mid, f"[{message.role} #{message.id}]")]
    return [
        SourceEntry(mid, _part_text(message, part, i == 0)) for i, part in enumerate(message.parts)
    ]


def to_entries(source: Sequence[Source]) -> list[SourceEntry]:
    """Accept messages, ready entries or ``(role, message_id, text)`` triples; text only."""
    entries: list[SourceEntry] = []
    for item in source:
        if isinstance(item, Message):
            entries.extend(entries_from_message(item))
        elif isinstance(item, SourceEntry):
            entries.append(item)
        elif isinstance(item, tuple) and len(item) == 3 and isinstance(item[2], str):
            role, mid, text = item
            entries.append(SourceEntry(str(mid), f"[{role} #{mid}] {text}"))
        else:
            raise TypeError(f"pages are rendered from text only, not {type(item).__name__}")
    return entries


def normalize(text: str, spaced_marks: bool = False) -> str:
    """NFC, tabs expanded, newlines as ``¶``, other controls as visible control pictures.

    With ``spaced_marks`` a run of newline marks stands between single spaces (an existing space
    is reused, so indentation keeps its width): ``a,¶{`` reads as one smudge at small sizes,
    ``a, ¶ {`` as three things.
    """
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    if "\t" in text:
        text = text.expandtabs(TAB_SIZE)
    if spaced_marks and "\n" in text:
        text = _NEWLINE_RUN.sub(lambda m: f" {NEWLINE_MARK * m.group().count(chr(10))} ", text)
    return text.translate(_TRANSLATE)


@dataclass
class _Row:
    text: str
    extras: list[tuple[int, tuple[int, ...]]]
    first_id: str | None
    last_id: str | None
    chars: int


@dataclass
class _Layout:
    """Flows entries into full rows of cells; records fallback and missing glyphs per row."""

    columns: int
    atlas: GlyphAtlas
    spaced_marks: bool = False
    rows: list[_Row] = field(default_factory=list)
    missing: dict[str, tuple[int, str]] = field(default_factory=dict)
    _buf: list[str] = field(default_factory=list)
    _extras: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    _col: int = 0
    _chars: int = 0
    _first: str | None = None
    _last: str | None = None

    def add(self, entry: SourceEntry) -> None:
        text = normalize(entry.text, self.spaced_marks)
        if self._col:
            text = " " + text
        lacking = set(text) - self.atlas.font.covered
        if not lacking:
            self._add_plain(text, entry.message_id)
            return
        # Only the characters the font lacks take the per-character path; the runs between
        # them stay on the fast one (one missing mark must not slow a whole message down).
        runs = re.compile("([" + "".join(map(re.escape, sorted(lacking))) + "]+)")
        for i, run in enumerate(runs.split(text)):
            if run:
                (self._add_mixed if i % 2 else self._add_plain)(run, entry.message_id)

    def finish(self) -> list[_Row]:
        if self._col:
            self._flush()
        return self.rows

    def _touch(self, mid: str) -> None:
        if self._first is None:
            self._first = mid
        self._last = mid

    def _add_plain(self, text: str, mid: str) -> None:
        i = 0
        while i < len(text):
            take = min(self.columns - self._col, len(text) - i)
            self._buf.append(text[i : i + take])
            self._touch(mid)
            self._col += take
            self._chars += take
            i += take
            if self._col == self.columns:
                self._flush()

    def _add_mixed(self, text: str, mid: str) -> None:
        """Lay out character by character: any text, at several times the plain path's cost."""
        for char in text:
            kind, cells = self._classify(char, mid)
            if self._col + cells > self.columns:
                self._flush()
            self._touch(mid)
            if kind == "primary":
                self._buf.append(char)
            else:
                self._extras.append((self._col, self.atlas.extra(char, kind, cells)))
                self._buf.append(" " * cells)
            self._col += cells
            self._chars += 1
            if self._col == self.columns:
                self._flush()

    def _classify(self, char: str, mid: str) -> tuple[str, int]:
        if self.atlas.font.can_draw(char):
            return "primary", 1
        uni = fonts.unifont()
        if uni.can_draw(char):
            return "unifont", min(uni.cells(char), self.columns)
        count, first = self.missing.get(char, (0, mid))
        self.missing[char] = (count + 1, first)
        return "missing", 1

    def _flush(self) -> None:
        row = _Row("".join(self._buf), self._extras, self._first, self._last, self._chars)
        self.rows.append(row)
        self._buf, self._extras, self._col, self._chars = [], [], 0, 0
        self._first = self._last = None


def page_bitmap(rows: Sequence[_Row], geometry: PageGeometry, atlas: GlyphAtlas) -> np.ndarray:
    """The 1-bit page (1 = paper) printing ``rows``: one gather from the atlas."""
    columns = geometry.columns
    text = "".join(row.text.ljust(columns) for row in rows)
    grid = atlas.indices(text).reshape(len(rows), columns)
    for r, row in enumerate(rows):
        for col, indices in row.extras:
            grid[r, col : col + len(indices)] = indices
    block = atlas.compose(grid)
    page = np.ones((geometry.height_for_rows(len(rows)), geometry.page_width), dtype=np.uint8)
    pad = geometry.padding
    page[pad : pad + block.shape[0], pad : pad + block.shape[1]] = block
    return page


def _draw_page(rows: Sequence[_Row], geometry: PageGeometry, atlas: GlyphAtlas) -> Page:
    bitmap = page_bitmap(rows, geometry, atlas)
    height = bitmap.shape[0]
    return Page(
        png=encode_png(bitmap),
        width=geometry.page_width,
        height=height,
        rows=len(rows),
        chars=sum(r.chars for r in rows),
        first_message_id=rows[0].first_id,
        last_message_id=rows[-1].last_id,
        image_tokens=geometry.cost(height),
    )


def render_snapshot(source: Sequence[Source], geometry: PageGeometry) -> Snapshot:
    """Render messages or text entries into pages of ``geometry`` (fresh from text every time)."""
    atlas = glyph_atlas(geometry.font, geometry.cell_width, geometry.cell_height)
    layout = _Layout(geometry.columns, atlas, geometry.spaced_marks)
    for entry in to_entries(source):
        layout.add(entry)
    rows = layout.finish()
    per_page = geometry.rows
    pages = tuple(
        _draw_page(rows[i : i + per_page], geometry, atlas) for i in range(0, len(rows), per_page)
    )
    missing = tuple(
        MissingChar(char, count, mid)
        for char, (count, mid) in sorted(layout.missing.items(), key=lambda kv: ord(kv[0]))
    )
    return Snapshot(geometry, pages, missing)
