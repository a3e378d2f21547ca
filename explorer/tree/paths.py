"""Walking the tree: root-to-tip paths, children and siblings (T1)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from explorer.tree.errors import ExplorerError
from explorer.tree.model import Message

K = TypeVar("K", bound=Hashable)


class CycleError(ExplorerError, ValueError):
    """Parent pointers loop back on themselves."""


def path_to(parents: Mapping[K, K | None], tip: K) -> list[K]:
    """Ids from the root to ``tip`` inclusive; raises on a cycle or unknown id."""
    if tip not in parents:
        raise KeyError(f"unknown message {tip!r}")
    seen: set[K] = set()
    out: list[K] = []
    node: K | None = tip
    while node is not None:
        if node in seen:
            raise CycleError(f"parent pointers loop at {node!r}")
        seen.add(node)
        out.append(node)
        node = parents.get(node)
    out.reverse()
    return out


def message_path(messages: Mapping[Hashable, Message], tip: Hashable) -> list[Message]:
    """The messages on the path from the root to ``tip``."""
    parents = {k: m.parent_id for k, m in messages.items()}
    return [messages[k] for k in path_to(parents, tip)]


def children_map(messages: Iterable[Message]) -> dict[Hashable | None, list[Hashable]]:
    """Parent id to child ids, in insertion order (roots under ``None``)."""
    out: dict[Hashable | None, list[Hashable]] = {}
    for m in messages:
        out.setdefault(m.parent_id, []).append(m.id)
    return out


def siblings(messages: Mapping[Hashable, Message], mid: Hashable) -> list[Hashable]:
    """Every message sharing ``mid``'s parent, ``mid`` included, in order."""
    parent = messages[mid].parent_id
    return [k for k, m in messages.items() if m.parent_id == parent]


def deepest_leaf(children: Mapping[Hashable | None, list[Hashable]], start: Hashable) -> Hashable:
    """Follow the last child from ``start`` down to a leaf (the newest branch)."""
    node = start
    seen = {node}
    while children.get(node):
        node = children[node][-1]
        if node in seen:
            raise CycleError(f"parent pointers loop at {node!r}")
        seen.add(node)
    return node


def tree_order(messages: Iterable[Message]) -> list[Message]:
    """Parents before children (depth first, siblings in input order), cycles cut."""
    items = list(messages)
    ids = {m.id for m in items}
    kids: dict[Hashable | None, list[Message]] = {}
    for m in items:
        kids.setdefault(m.parent_id if m.parent_id in ids else None, []).append(m)
    out: list[Message] = []
    stack = list(reversed(kids.get(None, [])))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(kids.get(node.id, [])))
    return out


def newest_leaf(messages: Sequence[Message]) -> Hashable | None:
    """The leaf created last (the last leaf in input order where times are missing or tied).

    Formats that do not name the branch on screen get this as their tip.
    """
    parents = {m.parent_id for m in messages}
    leaves = [m for m in messages if m.id not in parents]
    if not leaves:
        return messages[-1].id if messages else None
    best = leaves[-1]
    for leaf in leaves:
        if (leaf.created_at or 0.0) > (best.created_at or 0.0):
            best = leaf
    return best.id
