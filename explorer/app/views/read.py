"""Read-side use-cases the command line and the app share: tree marks, path views."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from explorer.app.views.tree_text import TreeMarks, render_tree
from explorer.app.views.tree_view import TendedView, tended_view
from explorer.store import Store
from explorer.store.reads import fork_points
from explorer.tree.digest import digest_text


def tree_marks(store: Store, conv_id: int, view: TendedView | None = None,
               path_to: Callable[[int], set[int] | None] = lambda _tip: None) -> TreeMarks:
    """The marks the tree and the graph draw; ``path_to(tip)`` may give the active path's
    ids from what the caller read already (None: read it from the store)."""
    conv = store.conversation(conv_id)
    view = view or tended_view(store, conv_id)
    active: set[int] = set()
    if conv.tip_id is not None:
        found = path_to(conv.tip_id)
        active = found if found is not None else set(store.path_ids(conv.tip_id))
    labels: dict[int, list[str]] = {}
    for label, mid in store.checkpoints(conv_id).items():
        labels.setdefault(mid, []).append(label)
    notes: dict[int, list[str]] = {}
    for r in store.rewinds(conv_id):
        notes.setdefault(r["from_tip_id"], []).append(f"rewound to {r['label']}")
    for fork, at in fork_points(store.reader, conv_id):  # not every conversation's count
        notes.setdefault(at, []).append(f"forked to #{fork}")
    for comp in store.compactions(conv_id):
        notes.setdefault(comp["message_id"], []).append(f"compaction: {comp['kind']}")
    if conv.context_start_id is not None:
        notes.setdefault(conv.context_start_id, []).append("context starts here")
    if conv.clean_tip_id is not None and conv.clean_tip_id != conv.tip_id:
        notes.setdefault(conv.clean_tip_id, []).append("last clean boundary")
    for mid, name in view.marks.labels.items():  # for the tooltip and the text tree
        notes.setdefault(mid, []).append(f"⎇ {name}")
    for mid in {*view.marks.archived, *view.marks.preferred, *view.marks.notes,
                *(m.at for m in view.markers if m.at is not None),
                *(end for link in view.merges for end in link), *view.stale}:
        notes.setdefault(mid, []).extend(view.notes_for(mid))
    markers: dict[int | None, list[str]] = {}
    folded: dict[int | None, tuple[int, int]] = {}
    for m in view.markers:
        markers.setdefault(m.at, []).append(m.text())
        archived, deleted = folded.get(m.at, (0, 0))
        n = len(m.roots)
        folded[m.at] = (archived + n, deleted) if m.kind == "archived" else (archived,
                                                                              deleted + n)
    return TreeMarks(active=active, tip=conv.tip_id, labels=labels, notes=notes,
                     hidden=frozenset(view.hidden), markers=markers,
                     stale=frozenset(view.stale), folded=folded, merges=list(view.merges),
                     branch_names=dict(view.marks.labels), user_notes=dict(view.marks.notes),
                     preferred=frozenset(view.marks.preferred))


def tree_lines(
    store: Store, conv_id: int, width: int = 100, show_all: bool = False
) -> list[str]:
    """The tree as text; archived branches fold into a note at their branch point."""
    view = tended_view(store, conv_id, show_all)
    nodes = [n for n in store.skeleton(conv_id) if n.id not in view.hidden]
    lines = render_tree(nodes, tree_marks(store, conv_id, view), width)
    lines += [f"{m.text()} among the roots" for m in view.markers_at(None)]
    return lines


def tree_json(store: Store, conv_id: int, show_all: bool = False) -> dict[str, Any]:
    view = tended_view(store, conv_id, show_all)
    marks = tree_marks(store, conv_id, view)
    return {
        "conversation": conv_id,
        "tip": marks.tip,
        "nodes": [
            {"id": n.id, "parent": n.parent_id, "role": n.role, "preview": n.preview,
             "active": n.id in marks.active, "labels": list(marks.labels.get(n.id, ())),
             "notes": list(marks.notes.get(n.id, ())),
             "archived": n.id in view.marks.archived, "preferred": n.id in view.marks.preferred,
             "branch_label": view.marks.labels.get(n.id), "note": view.marks.notes.get(n.id)}
            for n in store.skeleton(conv_id) if n.id not in view.hidden
        ],
        "markers": [{"at": m.at, "kind": m.kind, "roots": list(m.roots),
                     "messages": m.messages, "tombstones": list(m.tombstones)}
                    for m in view.markers],
        "hidden": len(view.hidden),
    }


def rewind_lines(store: Store, conv_id: int) -> list[str]:
    return [f"rewind to {r['label']}: {digest_text(r['digest'])}" for r in store.rewinds(conv_id)]


def path_notes(store: Store, conv_id: int, show_all: bool = False) -> dict[int, list[str]]:
    """What the transcript shows beside each message of the active path: ◀ ▶ place
    ("2/3 · 1 archived"), notes, and the markers of what is folded or deleted there."""
    view = tended_view(store, conv_id, show_all)
    conv = store.conversation(conv_id)
    out: dict[int, list[str]] = {}
    path = store.path_ids(conv.tip_id) if conv.tip_id is not None else []
    parent: int | None = None
    for mid in path:
        siblings = view.children.get(parent, [])
        notes: list[str] = []
        if len(siblings) > 1:
            notes.append(f"alternative {view.place(siblings, mid).text()}")
        notes += view.notes_for(mid)
        if mid in view.marks.labels:
            notes.append(f"branch: {view.marks.labels[mid]}")
        if notes:
            out[mid] = notes
        parent = mid
    return out
