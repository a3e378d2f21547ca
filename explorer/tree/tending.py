"""What may be archived, deleted or preferred, and how siblings count (T6, T7).

Plain functions over parent maps: the store asks them before it writes, the views
ask them before they draw, so the window, ``convo tree`` and ◀ ▶ agree.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from explorer.tree.errors import ExplorerError


class TendingError(ExplorerError, ValueError):
    """A tree action the rules refuse; the text says why."""


class CheckpointsOnBranch(TendingError):
    """Deleting the branch would take checkpoints with it: refused unless asked for (T7).
    ``named`` lists them, for a caller that says in its own words how to ask."""

    def __init__(self, named: str) -> None:
        super().__init__(f"the branch holds checkpoint(s) {named}; delete it with its "
                         "checkpoints explicitly (--with-checkpoints) or move them first")
        self.named = named


Children = Mapping[int | None, Sequence[int]]


def children_of(parents: Mapping[int, int | None]) -> dict[int | None, list[int]]:
    """Parent id to child ids in id order (roots under ``None``)."""
    out: dict[int | None, list[int]] = {}
    for mid in sorted(parents):
        out.setdefault(parents[mid], []).append(mid)
    return out


def subtree(children: Children, root: int) -> list[int]:
    """``root`` and everything below it, parents before children."""
    out: list[int] = []
    stack = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        out.append(node)
        stack.extend(reversed(children.get(node, ())))
    return out


def check_off_path(root: int, active: Collection[int], action: str) -> None:
    """Refuse to ``action`` a subtree that holds the active path (T6, T7)."""
    if root in active:
        raise TendingError(
            f"message {root} is on the active path (root to tip); {action} it would hide "
            "what the conversation continues from: switch to another branch first"
        )


def check_checkpoints(
    ids: Collection[int], checkpoints: Mapping[str, int], with_checkpoints: bool
) -> list[str]:
    """Labels whose target is in ``ids``; refused unless the caller said so (T7)."""
    caught = sorted(label for label, target in checkpoints.items() if target in ids)
    if caught and not with_checkpoints:
        raise CheckpointsOnBranch(
            ", ".join(f"{label!r} (message {checkpoints[label]})" for label in caught))
    return caught


def hidden_by_archive(children: Children, archived: Iterable[int]) -> set[int]:
    """Every message folded away under an archived subtree root."""
    out: set[int] = set()
    for root in archived:
        if root not in out:
            out.update(subtree(children, root))
    return out


@dataclass(frozen=True)
class SiblingPlace:
    """Where a message sits among its visible alternatives, and how many are archived."""

    visible: tuple[int, ...]
    index: int
    archived: int

    def text(self) -> str:
        """``2/3``, or ``2/3 · 1 archived`` when some alternatives are folded away."""
        base = f"{self.index + 1}/{len(self.visible)}" if self.visible else ""
        return f"{base} · {self.archived} archived" if self.archived else base


def sibling_place(siblings: Sequence[int], current: int, archived: Collection[int]) -> SiblingPlace:
    """◀ ▶ counts only visible alternatives; the current one always counts (it is shown)."""
    visible = tuple(s for s in siblings if s not in archived or s == current)
    index = visible.index(current) if current in visible else 0
    return SiblingPlace(visible, index, len(siblings) - len(visible))


def preferred_choices(path: Sequence[int], children: Children) -> dict[int | None, int]:
    """At every branch point on ``path``, the child the path goes through (``star``)."""
    out: dict[int | None, int] = {}
    parent: int | None = None
    for mid in path:
        if len(children.get(parent, ())) > 1:
            out[parent] = mid
        parent = mid
    return out


def preferred_leaf(
    children: Children, start: int | None, preferred: Collection[int],
    hidden: Collection[int] = (), active: Collection[int] = (),
) -> int | None:
    """Follow the starred child from ``start`` to a leaf; where none is starred, the active
    path's child, else the newest visible one."""
    node = start
    seen: set[int | None] = set()
    while node not in seen:
        seen.add(node)
        kids = [k for k in children.get(node, ()) if k not in hidden]
        if not kids:
            return node
        starred = [k for k in kids if k in preferred] or [k for k in kids if k in active]
        node = starred[0] if starred else kids[-1]
    return node


def stale_answers(
    parents: Mapping[int, int | None], roles: Mapping[int, str], edits: Mapping[int, int],
    replays: Iterable[tuple[int, int]],
) -> set[int]:
    """Answers below a prompt that was edited into a sibling (``edits``: edit → original),
    except those on a branch already replayed onto that edit (``replays``: (tip, onto))."""
    children = children_of(parents)
    done: dict[int, list[int]] = {}
    for tip, onto in replays:
        done.setdefault(onto, []).append(tip)
    out: set[int] = set()
    for edit, original in edits.items():
        if edit not in parents or original not in parents:
            continue
        covered: set[int] = set()
        for tip in done.get(edit, ()):
            node: int | None = tip
            while node is not None and node in parents and node != original:
                covered.add(node)
                node = parents[node]
        out.update(m for m in subtree(children, original)
                   if roles.get(m) == "assistant" and m not in covered)
    return out
