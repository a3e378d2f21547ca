"""The "2/3" sibling switcher shown on a message that has alternatives.

Edited prompts and regenerated answers are siblings (same parent). Chat apps
show them as ◀ 2/3 ▶ on the message itself; choosing one only asks for the
switch (the card's ``siblingChosen``): moving the tip is the store's job, so the
transcript never changes the tree behind the caller's back.

This is the switcher's state and words; the card paints it in its header
(:mod:`.header`), so a message with alternatives costs no widgets of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from explorer.tree.tending import SiblingPlace

Describe = Callable[[list[int], int], list[str]]
"""One line per sibling saying what sets it apart (read only when a tooltip asks)."""


class SiblingSwitcher:
    """Where ``current`` stands among ``ids`` (in the store's order); ``archived``
    alternatives are left out of ``ids`` but counted aloud ("2/3 · 1 archived")."""

    def __init__(self, ids: Sequence[int], current: int, archived: int = 0,
                 describe: Describe | None = None) -> None:
        self.ids = list(ids)
        self.archived = archived
        self.index = self.ids.index(current) if current in self.ids else 0
        self.describe = describe
        self._listing: str | None = None

    @property
    def visible(self) -> bool:
        """Shown when there is somewhere to go, or something archived to say."""
        return len(self.ids) > 1 or self.archived > 0

    def text(self) -> str:
        return sibling_place_text(self.index, len(self.ids), self.archived)

    def can_step(self, delta: int) -> bool:
        return 0 <= self.index + delta < len(self.ids)

    def target(self, delta: int) -> int | None:
        """The sibling ``delta`` places away, or None past either end."""
        return self.ids[self.index + delta] if self.can_step(delta) else None

    def current(self) -> int | None:
        return self.ids[self.index] if self.ids else None

    def listing(self) -> str:
        """Every sibling by what sets it apart, read the first time a tooltip asks."""
        if self._listing is None:
            lines = self.describe(self.ids, self.ids[self.index]) if (
                self.describe is not None and self.ids) else []
            self._listing = "\n".join(lines)
        return self._listing

    def tooltip(self, part: str) -> str:
        """What hovering ``part`` ("previous", "place", "next", "compare") says."""
        if part == "compare":
            return "Compare the alternatives side by side"
        listing = self.listing()
        if not listing:
            return {"previous": "Previous alternative", "next": "Next alternative"}.get(
                part, f"Alternative {self.index + 1} of {len(self.ids)} at this point")
        head = {"previous": "◀ previous", "next": "▶ next"}.get(
            part, f"alternative {self.index + 1} of {len(self.ids)}")
        return f"{head}\n{listing}"


def sibling_place_text(index: int, count: int, archived: int) -> str:
    """The same words ``convo show`` prints: ``2/3`` or ``2/3 · 1 archived``."""
    if not count:
        return ""
    return SiblingPlace(tuple(range(count)), index, archived).text()
