"""Hand-drawn glyphs that sit on top of a bundled cell font (``resources/fonts/<name>.glyphs``).

misc-fixed lacks marks agent transcripts print all the time (``✓ ✗ ⚠ ⏺ ⎿``), and a few of its
small glyphs read as other characters; a glyph file adds or replaces those. The format is plain
text so a glyph can be read and edited as the picture it is::

    U+2713 ✓        a glyph: then one row per pixel row, "#" ink, "." paper
    U+23FA ⏺ = ●    an alias: draw the character with a glyph the font already has

Blank lines and comments (lines starting with ``# ``, hash and space: a pixel row has no space)
are skipped. Anything else is a clear error naming the
line, so a broken file never draws a wrong page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from explorer.tree.errors import ExplorerError


class GlyphFileError(ExplorerError, ValueError):
    """A glyph file does not parse, or a glyph does not fit the font's cell."""


@dataclass(frozen=True)
class GlyphFile:
    """Drawn glyphs (rows of ``#``/``.``) and aliases (character -> character it is drawn as)."""

    drawn: dict[str, tuple[str, ...]] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def chars(self) -> frozenset[str]:
        return frozenset(self.drawn) | frozenset(self.aliases)


def _header(line: str, where: str) -> tuple[str, str | None]:
    """(character, alias target or None) of a ``U+XXXX c [= t]`` line."""
    code, _, rest = line.partition(" ")
    if not code.startswith("U+"):
        raise GlyphFileError(f"{where}: expected 'U+XXXX <char>', got {line!r}")
    try:
        char = chr(int(code[2:], 16))
    except ValueError:
        raise GlyphFileError(f"{where}: {code!r} is not a code point") from None
    shown, _, target = rest.partition("=")
    if shown.strip() != char:
        raise GlyphFileError(f"{where}: {code} is {char!r}, the line shows {shown.strip()!r}")
    target = target.strip()
    if target and len(target) != 1:
        raise GlyphFileError(f"{where}: an alias names one character, not {target!r}")
    return char, (target or None)


def parse_glyphs(text: str, cell: tuple[int, int], name: str = "glyphs") -> GlyphFile:
    """Parse a glyph file for a ``cell`` (width, height) font; every glyph must fill the cell."""
    width, height = cell
    out = GlyphFile()
    lines = [(n, raw.rstrip()) for n, raw in enumerate(text.splitlines(), start=1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("# ")]
    i = 0
    while i < len(lines):
        n, line = lines[i]
        char, target = _header(line, f"{name}:{n}")
        if char in out.chars:
            raise GlyphFileError(f"{name}:{n}: U+{ord(char):04X} is defined twice")
        if target is not None:
            out.aliases[char] = target
            i += 1
            continue
        rows = tuple(row for _, row in lines[i + 1 : i + 1 + height])
        bad = [r for r in rows if len(r) != width or set(r) - {"#", "."}]
        if len(rows) != height or bad:
            raise GlyphFileError(
                f"{name}:{n}: U+{ord(char):04X} needs {height} rows of {width} '#'/'.' pixels"
            )
        out.drawn[char] = rows
        i += 1 + height
    return out


def load_glyphs(path: Path, cell: tuple[int, int]) -> GlyphFile:
    """The glyph file at ``path``, or an empty one when the font has none."""
    if not path.exists():
        return GlyphFile()
    return parse_glyphs(path.read_text(encoding="utf-8"), cell, path.name)
