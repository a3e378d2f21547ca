"""Read-side use-cases the command line and the app share: tree marks, path views."""

from __future__ import annotations

from typing import Any

from explorer.app.tree_text import TreeMarks, render_tree
from explorer.store import Store
from explorer.tree.digest import digest_text


def tree_marks(store: Store, conv_id: int) -> TreeMarks:
    conv = store.conversation(conv_id)
    active = set(store.path_ids(conv.tip_id)) if conv.tip_id is not None else set()
    labels: dict[int, list[str]] = {}
    for label, mid in store.checkpoints(conv_id).items():
        labels.setdefault(mid, []).append(label)
    notes: dict[int, list[str]] = {}
    for r in store.rewinds(conv_id):
        notes.setdefault(r["from_tip_id"], []).append(f"rewound to {r['label']}")
    for c in store.conversations():
        if c.forked_from_conversation_id == conv_id and c.forked_from_message_id is not None:
            notes.setdefault(c.forked_from_message_id, []).append(f"forked to #{c.id}")
    for comp in store.compactions(conv_id):
        notes.setdefault(comp["message_id"], []).append(f"compaction: {comp['kind']}")
    if conv.context_start_id is not None:
        notes.setdefault(conv.context_start_id, []).append("context starts here")
    if conv.clean_tip_id is not None and conv.clean_tip_id != conv.tip_id:
        notes.setdefault(conv.clean_tip_id, []).append("last clean boundary")
    return TreeMarks(active=active, tip=conv.tip_id, labels=labels, notes=notes)


def tree_lines(store: Store, conv_id: int, width: int = 100) -> list[str]:
    return render_tree(store.skeleton(conv_id), tree_marks(store, conv_id), width)


def tree_json(store: Store, conv_id: int) -> dict[str, Any]:
    marks = tree_marks(store, conv_id)
    return {
        "conversation": conv_id,
        "tip": marks.tip,
        "nodes": [
            {"id": n.id, "parent": n.parent_id, "role": n.role, "preview": n.preview,
             "active": n.id in marks.active, "labels": list(marks.labels.get(n.id, ())),
             "notes": list(marks.notes.get(n.id, ()))}
            for n in store.skeleton(conv_id)
        ],
    }


def rewind_lines(store: Store, conv_id: int) -> list[str]:
    return [f"rewind to {r['label']}: {digest_text(r['digest'])}" for r in store.rewinds(conv_id)]
