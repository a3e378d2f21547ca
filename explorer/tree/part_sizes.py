"""The sizes a part is costed by, whatever the model: kept beside the part when it is written.

A context figure over a 60,000-message path used to read every part's text and count it
again (and scan it for secrets) each time a window opened; the counts depend on nothing
but the part, so they are taken once. ``sent_*`` are the counts of the text after the
secret redactor (SPEC R1: what is sent or costed never holds a secret), present only when
the redactor changes the text; an image is costed by its width and height.
"""

from __future__ import annotations

from typing import NamedTuple

from explorer.tree.model import Part
from explorer.tree.secrets import redact_text
from explorer.tree.text_units import image_size, text_units

SIZE_COLUMNS = ("size_chars", "size_words", "size_punct", "size_wide", "sent_words",
                "sent_punct", "sent_wide", "image_width", "image_height")
"""The parts table's columns, in :class:`PartSize`'s order; ``size_chars`` NULL: not sized."""


class PartSize(NamedTuple):
    chars: int  # characters of the text (its length, without reading it)
    words: int  # ``text_units`` of the text
    punct: int
    wide: int
    sent_words: int | None  # ``text_units`` of the redacted text; None: the same text
    sent_punct: int | None
    sent_wide: int | None
    width: int | None  # an image's header size; None: not an image, or unreadable
    height: int | None

    def units(self, redacted: bool) -> tuple[int, int, int]:
        """The counts as costed: after the redactor when ``redacted``."""
        if redacted and self.sent_words is not None:
            return self.sent_words, self.sent_punct or 0, self.sent_wide or 0
        return self.words, self.punct, self.wide


def part_size(part: Part) -> PartSize:
    """The part's sizes, as the estimator and the redactor see it."""
    words, punct, wide = text_units(part.text)
    sent: tuple[int | None, int | None, int | None] = (None, None, None)
    if part.kind != "image" and part.text:  # as the redactor treats a part
        redacted, kinds = redact_text(part.text)
        if kinds:
            sent = text_units(redacted)
    size = image_size(part.data) if part.kind == "image" and part.data else None
    width, height = size if size is not None else (None, None)
    return PartSize(len(part.text), words, punct, wide, *sent, width, height)
