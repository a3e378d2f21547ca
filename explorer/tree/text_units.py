"""What a token estimate needs to know of a text or an image, whatever the model.

Text is costed by characters-per-token ratios per class (plain ASCII word characters, ASCII
punctuation, non-ASCII characters), so the counts per class are all a family's heuristic
reads; an image is costed by its width and height. These counts depend on nothing but the
part, so the store keeps them beside each part (written once, when the part is written) and
a figure over 60,000 messages is a sum over stored integers instead of a read of every text.
"""

from __future__ import annotations

import io
import re
import string
from collections.abc import Iterator
from functools import lru_cache

_WS_RUN = re.compile(r"\s{2,}")
_NON_WS = re.compile(r"\S")
UNITS_CHUNK = 1 << 16
"""Characters of one text counted in one go. Each count is a C loop that holds the GIL, so a
10 MB paste is counted in slices: the window's thread gets the interpreter between them."""
_PUNCT_BYTES = string.punctuation.encode("ascii")
# An ASCII byte as "1" when it is blank (what ``\s`` matches among ASCII), else "0": a text's
# whitespace runs are then counted by two substring counts instead of a regex substitution.
_BLANK_MARKS = bytes(0x31 if b < 128 and chr(b).isspace() else 0x30 for b in range(256))


@lru_cache(maxsize=512)
def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the image header (Pillow reads only the header)."""
    from PIL import Image, UnidentifiedImageError  # with the first image, not at start-up

    try:
        with Image.open(io.BytesIO(data)) as img:
            w, h = img.size
            return int(w), int(h)
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def text_units(text: str) -> tuple[int, int, int]:
    """(word chars, punctuation chars, non-ASCII chars); whitespace runs count once."""
    words = punct = non_ascii = 0
    for piece in slices(text) if len(text) > UNITS_CHUNK else (text,):
        w, p, a = _units(piece)
        words, punct, non_ascii = words + w, punct + p, non_ascii + a
    return max(0, words), punct, non_ascii  # a blank can be non-ASCII too: clamped once


def slices(text: str, size: int = UNITS_CHUNK) -> Iterator[str]:
    """``text`` in pieces of about ``size`` characters, each cut just before a non-blank
    character, so no whitespace run is split and the counts add up exactly."""
    start, n = 0, len(text)
    while start < n:
        cut = start + size
        if cut < n:
            found = _NON_WS.search(text, cut)
            cut = found.start() if found is not None else n
        yield text[start:cut]
        start = cut


def _units(text: str) -> tuple[int, int, int]:
    """The counts of one piece; the word count is left unclamped so pieces add up."""
    n = len(text)
    if not n:
        return 0, 0, 0
    # Counted with C loops only (count, sub): this runs over every part of a 100k-message path.
    non_ascii = 0 if text.isascii() else n - len(text.encode("ascii", "ignore"))
    # ASCII punctuation is the same bytes in UTF-8 (no multi-byte sequence holds an ASCII
    # byte): deleting them from the bytes counts them without a string per match.
    data = text.encode("utf-8", "surrogatepass")
    punct = len(data) - len(data.translate(None, _PUNCT_BYTES))
    return n - non_ascii - punct - _blanks_beyond_one(text, data, non_ascii), punct, non_ascii


def _blanks_beyond_one(text: str, data: bytes, non_ascii: int) -> int:
    """A run of L blanks counts once: L - 1 extra. In ASCII text, every blank but the
    first of each run: blanks less run starts (a "0" or the text's start before a "1"),
    counted over the text's bytes marked blank or not (a third of the substitution's time
    over every part of a long session). Other text: the substitution, as ``\\s`` sees it."""
    if non_ascii:
        return len(text) - len(_WS_RUN.sub(" ", text))
    marks = data.translate(_BLANK_MARKS)
    return marks.count(b"1") - marks.count(b"01") - (marks[:1] == b"1")
