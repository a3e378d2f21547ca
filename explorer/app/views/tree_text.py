"""A text picture of a conversation's tree, as ``/tree`` and ``convo tree`` print it.

Linear runs stay in one column; only real branch points indent, so a
5,000-message path prints as 5,000 lines, not a staircase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from explorer.store.reads import SkeletonNode


@dataclass
class TreeMarks:
    """What to flag beside nodes: the active path, the tip, labels and other notes."""

    active: set[int] = field(default_factory=set)
    tip: int | None = None
    labels: Mapping[int, Sequence[str]] = field(default_factory=dict)
    notes: Mapping[int, Sequence[str]] = field(default_factory=dict)
    # Tending (T6, T7), for views that draw them: nodes folded under an archived branch,
    # where a marker stands for something folded or deleted, answers gone stale.
    hidden: frozenset[int] = frozenset()
    markers: Mapping[int | None, Sequence[str]] = field(default_factory=dict)
    stale: frozenset[int] = frozenset()
    # branch point → (archived branches folded there, deleted branches), and merge links
    # (side branch tip, merge message), for the graph's glyphs and link edges.
    folded: Mapping[int | None, tuple[int, int]] = field(default_factory=dict)
    merges: Sequence[tuple[int, int]] = ()
    # Branch names (``convo label``) by the message that starts the branch: the graph draws
    # them on the node; the text views carry them as a ``⎇ name`` note.
    branch_names: Mapping[int, str] = field(default_factory=dict)
    user_notes: Mapping[int, str] = field(default_factory=dict)  # ``convo note``, drawn too
    preferred: frozenset[int] = frozenset()  # ``convo star``: the chosen child at branch points


def render_tree(nodes: Sequence[SkeletonNode], marks: TreeMarks, width: int = 100) -> list[str]:
    kids: dict[int | None, list[SkeletonNode]] = {}
    for n in nodes:
        kids.setdefault(n.parent_id, []).append(n)
    lines: list[str] = []
    roots = kids.get(None, [])
    # Stack of (node, prefix for its own line, prefix for what follows it).
    stack: list[tuple[SkeletonNode, str, str]] = [
        (r, *_branch_prefixes("", i == len(roots) - 1, len(roots) > 1))
        for i, r in reversed(list(enumerate(roots)))
    ]
    while stack:
        node, head, rest = stack.pop()
        lines.append(_line(node, head, marks, width))
        children = kids.get(node.id, [])
        many = len(children) > 1
        for i, child in reversed(list(enumerate(children))):
            stack.append((child, *_branch_prefixes(rest, i == len(children) - 1, many)))
    return lines


def _branch_prefixes(rest: str, last: bool, many: bool) -> tuple[str, str]:
    if not many:
        return rest, rest
    return rest + ("└─ " if last else "├─ "), rest + ("   " if last else "│  ")


def _line(node: SkeletonNode, prefix: str, marks: TreeMarks, width: int) -> str:
    bullet = "◆" if node.id == marks.tip else ("●" if node.id in marks.active else "○")
    tags = [f"[{lbl}]" for lbl in marks.labels.get(node.id, ())]
    tags += [f"({note})" for note in marks.notes.get(node.id, ())]
    head = f"{prefix}{bullet} {node.id} {node.role}"
    tail = (" " + " ".join(tags)) if tags else ""
    room = max(10, width - len(head) - len(tail) - 3)
    text = node.preview if len(node.preview) <= room else node.preview[: room - 1] + "…"
    return f"{head}: {text}{tail}"
