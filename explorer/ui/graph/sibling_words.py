"""Box text at branch points: each sibling from the words where it differs from the others.

Siblings usually start alike ("You're welcome! If you have …"), and the
stored one-line previews are cut before they part ways, so at a branch point
the siblings' full texts are read (once per branch point, only when a box
there is drawn with text) and each box shows its own words from where it
differs, the shared start replaced by "…".
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app.compare_labels import first_differing_words
from explorer.ui.graph.model import GraphModel

BOX_WORDS = 14


class SiblingWords:
    def __init__(self, read: Callable[[int], str]) -> None:
        self.read = read  # full text of a message, by id
        self.cache: dict[int, str] = {}

    def line(self, model: GraphModel, i: int) -> str | None:
        """Node ``i``'s differing words, or None when it is not at a branch point."""
        got = self.cache.get(i)
        if got is not None:
            return got
        sibs = model.siblings(i)
        if len(sibs) < 2 or i not in sibs:
            return None
        texts = [self.read(int(model.ids[s])) for s in sibs]
        for s, words in zip(sibs, first_differing_words(texts, BOX_WORDS), strict=True):
            self.cache[s] = words
        return self.cache[i]
