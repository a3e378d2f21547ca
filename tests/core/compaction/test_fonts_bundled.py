"""The bundled fonts: present with their licences, loaded once, coverage read from the files."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from explorer import resources
from explorer.compaction import fonts

FONT_DIR = resources.resource_path("fonts")


def test_bundled_font_files_have_licences_and_readme() -> None:
    names = {p.name for p in FONT_DIR.iterdir()}
    assert {"5x8.pcf", "6x9.pcf", "6x13.pcf", "8x13.pcf", "10x20.pcf", "unifont.hex.gz",
            "README.md"} <= names
    assert {"LICENSE-misc-fixed.txt", "LICENSE-unifont.txt"} <= names
    assert "Public domain font" in (FONT_DIR / "LICENSE-misc-fixed.txt").read_text()
    assert "font embedding exception" in (FONT_DIR / "LICENSE-unifont.txt").read_text()


@pytest.mark.parametrize(
    ("name", "cell"), [("5x8", (5, 8)), ("6x9", (6, 9)), ("6x13", (6, 13)), ("8x13", (8, 13)),
                        ("10x20", (10, 20))]
)
def test_cell_fonts_load_with_their_cell_size(name: str, cell: tuple[int, int]) -> None:
    font = fonts.cell_font(name)
    assert (font.cell_width, font.cell_height) == cell
    assert font.freetype.getlength("M" * 10) == 10 * cell[0]
    assert set(string.printable.strip()) <= font.covered


def test_fonts_are_loaded_once() -> None:
    assert fonts.cell_font("6x13") is fonts.cell_font("6x13")
    assert fonts.unifont() is fonts.unifont()


def test_unknown_cell_font_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown cell font"):
        fonts.cell_font("3x3")


def test_default_glyph_and_controls_do_not_count_as_coverage() -> None:
    font = fonts.cell_font("5x8")
    assert "\x00" not in font.covered
    assert "\x1b" not in font.covered
    assert " " in font.covered  # blank by design, so an empty glyph is right


@pytest.mark.parametrize("char", ["λ", "Ж", "é", "¶"])
def test_greek_cyrillic_latin_are_drawn_by_the_cell_font(char: str) -> None:
    assert fonts.font_for(char, "6x13") == "6x13"
    assert fonts.font_for(char, "5x8") == "5x8"


@pytest.mark.parametrize("char", ["中", "한", "あ", "ا"])
def test_other_scripts_fall_back_to_unifont(char: str) -> None:
    assert fonts.font_for(char, "5x8") == "unifont"
    assert fonts.undrawable(char, "5x8") == []


def test_unifont_glyph_widths() -> None:
    uni = fonts.unifont()
    assert uni.cells("中") == 2
    assert uni.cells("a") == 1
    assert uni.glyph("中").size == (16, 16)
    assert uni.glyph("中").getbbox() is not None  # has ink


def test_characters_no_font_draws_are_reported_in_code_point_order() -> None:
    text = "ok \U0010fffd \U0001f600 \u0378 \ue000 \U0001f600"
    assert fonts.undrawable(text, "6x13") == ["\u0378", "\ue000", "\U0001f600", "\U0010fffd"]
    assert fonts.font_for("\U0001f600", "6x13") is None


def test_non_pcf_file_is_a_clear_error(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.pcf"
    bogus.write_bytes(b"not a font at all")
    with pytest.raises(fonts.FontFileError, match="not a PCF font"):
        fonts.pcf_coverage(bogus, 6)


def test_resource_path_finds_checkout_and_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert resources.resource_path("fonts", "5x8.pcf").is_file()
    with pytest.raises(FileNotFoundError, match="bundled resource not found"):
        resources.resource_path("fonts", "missing.pcf")
    (tmp_path / "resources" / "fonts").mkdir(parents=True)
    (tmp_path / "resources" / "fonts" / "x.pcf").write_bytes(b"")
    monkeypatch.setattr("sys._MEIPASS", str(tmp_path), raising=False)
    assert resources.resource_path("fonts", "x.pcf") == tmp_path / "resources" / "fonts" / "x.pcf"
