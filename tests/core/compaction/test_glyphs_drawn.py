"""Hand-drawn glyphs on top of misc-fixed, and the layout's fast path around lacking characters."""

from __future__ import annotations

import hashlib
import io
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from explorer.compaction import fonts, snapshot_render
from explorer.compaction.glyph_atlas import draw_glyph, glyph_atlas
from explorer.compaction.glyph_file import GlyphFileError, load_glyphs, parse_glyphs
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.snapshot_render import SourceEntry, normalize, render_snapshot

MARKS = "✓✔✗✘⚠★⏺⎿❯⏎"


def _cell(font: str, char: str) -> np.ndarray:
    atlas = glyph_atlas(font, *fonts.CELL_FONTS[font])
    return atlas.cells[atlas.indices(char)[0]]


@pytest.mark.parametrize("font", ["5x8", "6x9", "6x13"])
def test_transcript_marks_are_drawn_by_the_cell_font_in_one_cell(font: str) -> None:
    for char in MARKS:
        assert fonts.font_for(char, font) == font, char
        assert _cell(font, char).min() == 0, char  # it has ink
    glyphs = {char: _cell(font, char).tobytes() for char in MARKS}
    assert len(set(glyphs.values())) == len(MARKS)  # no two marks look alike


@pytest.mark.parametrize("font", ["5x8", "6x9"])
def test_a_check_mark_is_its_drawn_picture_not_a_squeezed_fallback(font: str) -> None:
    w, h = fonts.CELL_FONTS[font]
    g = replace(page_geometry("anthropic", tier="dense"), font=font, cell_width=w, cell_height=h)
    snapshot = render_snapshot([SourceEntry("1", "tests ✓ done")], g)
    assert snapshot.missing == ()
    rows = fonts.cell_font(font).glyphs.drawn["✓"]
    want = np.array([[c == "." for c in r] for r in rows], dtype=np.uint8)
    assert np.array_equal(_cell(font, "✓"), want)
    page = np.asarray(Image.open(io.BytesIO(snapshot.pages[0].png)).convert("L")) >= 128
    col = len("tests ")
    assert np.array_equal(page[:h, col * w : (col + 1) * w], want.astype(bool))
    assert page[:h, (col + 1) * w : (col + 2) * w].all()  # one cell: the next one is the space


def test_6x9_f_and_e_no_longer_read_as_plus_and_epsilon() -> None:
    f, plus, t = _cell("6x9", "f"), _cell("6x9", "+"), _cell("6x9", "t")
    assert not np.array_equal(f, plus) and not np.array_equal(f, t)
    # the f hooks right at its top: ink right of the stem in the top inked row
    top = next(r for r in range(f.shape[0]) if f[r].min() == 0)
    stem = int(np.flatnonzero(f[top + 3] == 0)[0]) + 1  # the crossbar row starts left of it
    assert (f[top, stem + 1 :] == 0).any()
    e = _cell("6x9", "e")
    bar = [r for r in range(e.shape[0]) if (e[r] == 0).sum() >= 4]
    assert len(bar) == 1  # one level bar across the bowl, not a slanted stroke
    atlas = glyph_atlas("6x9", 6, 9)
    freetype_e = draw_glyph(fonts.cell_font("6x9"), "é", 6, 9, atlas.offset)
    assert not np.array_equal(e, freetype_e)


def test_aliases_draw_the_glyph_they_name() -> None:
    assert np.array_equal(_cell("5x8", "⏺"), _cell("5x8", "●"))
    assert np.array_equal(_cell("6x9", "⎿"), _cell("6x9", "└"))


def test_glyph_file_parses_glyphs_aliases_and_comments() -> None:
    text = "# a comment\n\nU+0041 A\n#.\n.#\n#.\nU+00C0 À = A\n"
    parsed = parse_glyphs(text, (2, 3))
    assert parsed.drawn == {"A": ("#.", ".#", "#.")}
    assert parsed.aliases == {"À": "A"}
    assert parsed.chars == {"A", "À"}


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("U+0041 A\n#.\n.#\n", "needs 3 rows of 2"),
        ("U+0041 A\n#.\n.#.\n#.\n", "needs 3 rows of 2"),
        ("U+0041 A\n#.\nx#\n#.\n", "needs 3 rows of 2"),
        ("0041 A\n#.\n.#\n#.\n", "expected 'U\\+XXXX <char>'"),
        ("U+00ZZ A\n", "not a code point"),
        ("U+0041 B\n", "the line shows 'B'"),
        ("U+0041 A = BC\n", "one character"),
        ("U+0041 A = B\nU+0041 A = C\n", "defined twice"),
    ],
)
def test_a_broken_glyph_file_is_a_clear_error_naming_the_line(text: str, error: str) -> None:
    with pytest.raises(GlyphFileError, match=error):
        parse_glyphs(text, (2, 3), "t.glyphs")


def test_a_font_without_a_glyph_file_has_no_drawn_glyphs(tmp_path: Path) -> None:
    assert load_glyphs(tmp_path / "none.glyphs", (5, 8)).chars == frozenset()
    assert fonts.cell_font("10x20").glyphs.chars == frozenset()


MIXED = "Résumé ✓ 中文 ok \U0001f600 then plain text again, " * 40


def _per_char_rows(text: str, columns: int) -> list[snapshot_render._Row]:
    g = page_geometry("anthropic", tier="dense")
    atlas = glyph_atlas(g.font, g.cell_width, g.cell_height)
    layout = snapshot_render._Layout(columns, atlas)
    layout._add_mixed(normalize(text), "1")  # the per-character path for the whole text
    return layout.finish()


def test_a_lacking_character_keeps_the_rest_on_the_fast_path_pixel_identically(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    g = page_geometry("anthropic", tier="dense")
    atlas = glyph_atlas(g.font, g.cell_width, g.cell_height)
    slow = snapshot_render.page_bitmap(_per_char_rows(MIXED, g.columns), g, atlas)
    calls = 0
    classify = snapshot_render._Layout._classify

    def counted(self: snapshot_render._Layout, char: str, mid: str) -> tuple[str, int]:
        nonlocal calls
        calls += 1
        return classify(self, char, mid)

    monkeypatch.setattr(snapshot_render._Layout, "_classify", counted)
    snapshot = render_snapshot([SourceEntry("1", MIXED)], g)
    (page,) = snapshot.pages
    fast = np.asarray(Image.open(io.BytesIO(page.png)).convert("L")) >= 128
    assert np.array_equal(fast, slow.astype(bool))
    lacking = sum(1 for c in MIXED if not fonts.cell_font(g.font).can_draw(c))
    assert lacking == 3 * 40  # 中, 文 and the emoji; ✓ and é are the cell font's own
    assert calls == lacking  # only those went character by character
    assert [m.count for m in snapshot.missing] == [40]


def test_L4_pages_with_drawn_glyphs_are_byte_identical_each_time() -> None:
    g = page_geometry("anthropic", tier="legible")
    text = "⏺ Ran 12 tests ✓ ✗ ⚠ ⎿ fee fie foe ❯ " * 300
    digests = [
        [hashlib.sha256(p.png).hexdigest() for p in render_snapshot([("user", 1, text)], g).pages]
        for _ in range(2)
    ]
    assert digests[0] == digests[1]


# Look-alikes in the 5x8 cell that OCR engines (and, at 5 px, any reader) confuse.
LOOK_ALIKES = ["0OD", "1lI|", "5S", "8B", "2Z", ".,", "vu", "kh", "6b", "9g", "{(<", "}>)", "[C",
               "fF"]


@pytest.mark.parametrize("group", LOOK_ALIKES)
def test_5x8_look_alikes_are_different_pictures(group: str) -> None:
    cells = [_cell("5x8", c).tobytes() for c in group]
    assert len(set(cells)) == len(group), group


def test_5x8_newline_mark_and_braces_leave_a_blank_column_so_they_do_not_merge() -> None:
    for char in "¶{}[]":
        assert _cell("5x8", char)[:, -1].all(), char  # 1 = paper: the last column is blank
    row = render_snapshot([SourceEntry("1", "}\n{")], page_geometry("anthropic", tier="dense"))
    ink = ~_decoded_rows(row.pages[0].png)[:8, :20]
    gaps = [x for x in range(1, 19) if not ink[:, x].any() and ink[:, :x].any()]
    assert gaps, "the newline mark runs into a brace"


def _decoded_rows(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("L")) >= 128


def test_5x8_period_is_a_square_dot_on_the_baseline_not_a_comma() -> None:
    period, comma = _cell("5x8", "."), _cell("5x8", ",")
    assert (period[7] == 1).all()  # nothing below the baseline
    assert (comma[7] == 0).any()  # a comma's tail is
