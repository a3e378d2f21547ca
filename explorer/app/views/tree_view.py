"""What a reader sees of a tended tree: folded archives, deletion markers, ◀ ▶ counts (T6, T7).

The command line, the transcript and the graph all ask this one module, so an
archived branch is folded (and announced) the same way everywhere and the counts
agree. Hiding never happens without a marker at the branch point.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from explorer.store import Store
from explorer.store.marks import Marks, merges_and_edits
from explorer.store.tombstones import Tombstone
from explorer.tree.tending import (
    SiblingPlace,
    children_of,
    hidden_by_archive,
    preferred_leaf,
    sibling_place,
    stale_answers,
    subtree,
)

MERGE_NOTE = "merges the branch ending at {tip}"
_MERGE_HEAD = MERGE_NOTE.split("{", 1)[0]


def merged_tip(note: str) -> int | None:
    """The side branch tip a merge message's note names (the transcript links it)."""
    rest = note[len(_MERGE_HEAD):] if note.startswith(_MERGE_HEAD) else ""
    return int(rest) if rest.isdigit() else None


def marker_kind(note: str) -> str | None:
    """"archived" or "deleted" when ``note`` is a marker's text (the transcript links it to
    unfolding or restoring what is there), else None."""
    if note.startswith("deleted branch") and " — undo (" in note:
        return "deleted"
    head = note.split(" ", 1)
    if len(head) == 2 and head[0].isdigit() and head[1].startswith("archived branch"):
        return "archived"
    return None


@dataclass(frozen=True)
class Marker:
    """Something folded or deleted below ``at`` (a branch point; None for the roots)."""

    at: int | None
    kind: str  # "archived" or "deleted"
    roots: tuple[int, ...]
    messages: int
    tombstones: tuple[int, ...] = ()

    def text(self) -> str:
        n = len(self.roots)
        size = f"({self.messages} message{'s' if self.messages != 1 else ''})"
        if self.kind == "archived":
            return f"{n} archived branch{'es' if n != 1 else ''} {size}"
        return f"deleted branch{'es' if n != 1 else ''} — undo {size}"


class OnDemand(Mapping[int, int | None]):
    """Every message's parent, read the first time something asks for one.

    Most views never do: folding needs the tree's shape only below an archived branch,
    staleness only above an edited prompt. Opening a conversation with neither reads
    no parent of its 100,000 messages (twice: for the transcript and for the graph)."""

    def __init__(self, read: Callable[[], Mapping[int, int | None]]) -> None:
        self._read = read
        self._known: Mapping[int, int | None] | None = None

    @property
    def read(self) -> bool:
        return self._known is not None

    def _map(self) -> Mapping[int, int | None]:
        if self._known is None:
            self._known = self._read()
        return self._known

    def __getitem__(self, mid: int) -> int | None:
        return self._map()[mid]

    def __iter__(self) -> Iterator[int]:
        return iter(self._map())

    def __len__(self) -> int:
        return len(self._map())


@dataclass
class TendedView:
    """One conversation's tree as shown: what is folded, what each branch point announces.

    ``children`` is made from ``parents`` when first asked for."""

    conversation_id: int
    show_all: bool
    marks: Marks
    parents: Mapping[int, int | None]
    hidden: set[int] = field(default_factory=set)
    markers: list[Marker] = field(default_factory=list)
    merges: list[tuple[int, int]] = field(default_factory=list)  # (side tip, merge message)
    stale: set[int] = field(default_factory=set)  # answers to a prompt chain edited upstream
    _children: dict[int | None, list[int]] | None = field(default=None, repr=False)

    @property
    def children(self) -> dict[int | None, list[int]]:
        if self._children is None:
            self._children = children_of(self.parents)
        return self._children

    def markers_at(self, mid: int | None) -> list[Marker]:
        return [m for m in self.markers if m.at == mid]

    def place(self, siblings: Sequence[int], current: int) -> SiblingPlace:
        """◀ ▶ position among visible alternatives (all of them with ``show_all``)."""
        folded = () if self.show_all else self.marks.archived
        return sibling_place(siblings, current, folded)

    def preferred_tip(
        self, start: int | None = None, active: Collection[int] = ()
    ) -> int | None:
        """Where the preferred path from ``start`` (the roots) leads."""
        return preferred_leaf(self.children, start, self.marks.preferred, self.hidden, active)

    def notes_for(self, mid: int) -> list[str]:
        out = []
        if mid in self.marks.archived:
            out.append("archived" + (" (unfolded)" if self.show_all else ""))
        if mid in self.marks.preferred:
            out.append("★ preferred")
        if mid in self.marks.notes:
            out.append(f"note: {self.marks.notes[mid]}")
        out += [m.text() for m in self.markers_at(mid)]
        out += [MERGE_NOTE.format(tip=tip) for tip, msg in self.merges if msg == mid]
        out += [f"merged back as {msg}" for tip, msg in self.merges if tip == mid]
        if mid in self.stale:
            out.append("stale: a prompt above was edited (replay to redo)")
        return out


def tended_view(store: Store, conv_id: int, show_all: bool = False) -> TendedView:
    # ids and parents only, and only when something needs the tree's shape (V2)
    parents = OnDemand(lambda: store.parents(conv_id))
    view = build_view(conv_id, parents, store.marks(conv_id), store.tombstones(conv_id),
                      show_all)
    view.merges, edits = merges_and_edits(store.reader, conv_id)  # one scan for both
    if edits:  # only an edited prompt makes answers stale
        roles = dict.fromkeys(store.ids_with_role(conv_id, "assistant"), "assistant")
        view.stale = stale_answers(parents, roles, edits, store.replays(conv_id))
    return view


def build_view(
    conv_id: int, parents: Mapping[int, int | None], marks: Marks, buried: Sequence[Tombstone],
    show_all: bool = False,
) -> TendedView:
    archived = [mid for mid in marks.archived if mid in parents] if marks.archived else []
    view = TendedView(conv_id, show_all, marks, parents)
    children = view.children if archived else {}
    view.hidden = set() if show_all else hidden_by_archive(children, archived)
    by_point: dict[int | None, list[int]] = {}
    for root in archived:
        by_point.setdefault(parents[root], []).append(root)
    for at, roots in by_point.items():
        if at in view.hidden:
            continue  # folded inside another archive: that one's marker counts it
        size = sum(len(subtree(children, r)) for r in roots)
        if not show_all:
            view.markers.append(Marker(at, "archived", tuple(roots), size))
    dead: dict[int | None, list[Tombstone]] = {}
    for t in buried:
        dead.setdefault(t.parent_id, []).append(t)
    for at, stones in dead.items():
        view.markers.append(Marker(at, "deleted", tuple(t.root_id for t in stones),
                                   sum(t.message_count for t in stones),
                                   tuple(t.id for t in stones)))
    return view


def preferred_tip(store: Store, conv_id: int) -> int | None:
    """The end of the preferred path: starred children first, then the active path's."""
    conv = store.conversation(conv_id)
    active = store.path_ids(conv.tip_id) if conv.tip_id is not None else []
    return tended_view(store, conv_id).preferred_tip(None, active)
