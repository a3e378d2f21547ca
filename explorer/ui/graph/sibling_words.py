"""Box text at branch points: each sibling from the words where it differs from the others.

Siblings usually start alike ("You're welcome! If you have …"), and the
stored one-line previews are cut before they part ways, so at a branch point
the siblings' texts are read and each box shows its own words from where it
differs, the shared start replaced by "…". The reading happens off the main
thread (V2): a paint that meets a branch point not read yet only notes it and
shows the stored preview; the widget hands the noted ones to its task runner
(``read_sibling_words``) and puts the words back with ``fill``. Paint never
touches the store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from explorer.app.comparing.labels import first_differing_words
from explorer.store import Store
from explorer.store.reads_path import text_head
from explorer.ui.graph.model import GraphModel

BOX_WORDS = 14
SIBLING_CHARS = 4000  # of each part, to find where siblings' texts part ways
GROUPS_PER_READ = 48  # branch points one read takes (the next read takes the rest)

Group = tuple[tuple[int, ...], tuple[int, ...]]  # sibling node positions, their message ids


class SiblingWords:
    """The words per node, as far as they have been read; ``asked`` is called (on the main
    thread, from paint) when the first branch point waiting to be read is noted."""

    def __init__(self, model: GraphModel, asked: Callable[[], None] = lambda: None) -> None:
        self.model = model
        self.asked = asked
        self.cache: dict[int, str] = {}
        self._wanted: dict[int, Group] = {}  # by first sibling: noted, not handed out yet
        self._noted: set[int] = set()  # first siblings noted so far (read or being read)

    def line(self, model: GraphModel, i: int) -> str | None:
        """Node ``i``'s differing words; None when it is not at a branch point or its
        branch point is not read yet (then it is noted for reading)."""
        got = self.cache.get(i)
        if got is not None:
            return got
        sibs = model.siblings(i)
        if len(sibs) < 2 or i not in sibs or model is not self.model:
            return None
        key = sibs[0]
        if key not in self._noted:
            self._noted.add(key)
            self._wanted[key] = (tuple(sibs), tuple(int(model.ids[s]) for s in sibs))
            if len(self._wanted) == 1:
                self.asked()
        return None

    @property
    def waiting(self) -> int:
        """Branch points noted and not handed out for reading yet."""
        return len(self._wanted)

    def take(self, limit: int = GROUPS_PER_READ) -> list[Group]:
        """Hand out up to ``limit`` noted branch points for reading, oldest first."""
        keys = list(self._wanted)[:limit]
        return [self._wanted.pop(k) for k in keys]

    def fill(self, words: dict[int, str]) -> None:
        """Words read off the main thread, by node position."""
        self.cache.update(words)


def read_sibling_words(
    store: Store, groups: Sequence[Group], check: Callable[[], None] = lambda: None,
    chars: int = SIBLING_CHARS,
) -> dict[int, str]:
    """Each group's differing words, by node position: for a worker thread (it reads only
    the start of each message's parts, never a 10 MB paste whole)."""
    out: dict[int, str] = {}
    reader = store.reader
    for positions, mids in groups:
        check()
        texts = [text_head(reader, mid, chars) for mid in mids]
        out.update(zip(positions, first_differing_words(texts, BOX_WORDS), strict=True))
    return out
