"""The graph's marks: what the store says about its nodes beyond their role, by message id.

Qt-free, so the process that builds a big conversation's turn graph
(:mod:`explorer.app.graph.turn_child`) reads them beside the window's worker.
"""

from __future__ import annotations

from collections.abc import Mapping

from explorer.app.graph.model import STAR, GraphMarks
from explorer.app.views.read import tree_marks
from explorer.app.views.tree_text import TreeMarks
from explorer.store import Store
from explorer.store.reads import fork_points
from explorer.store.turn_reads import subagent_links


def named_and_preferred(names: Mapping[int, str], preferred: frozenset[int]
                        ) -> dict[int, str]:
    """The names drawn on branches, with ``★`` on each preferred child (``convo star``), so
    the graph shows which way "show this branch" and a folded view go."""
    out = dict(names)
    for mid in preferred:
        out[mid] = f"{STAR} {names[mid]}" if mid in names else f"{STAR} preferred"
    return out


def read_marks(store: Store, conv_id: int, marks: TreeMarks | None = None,
               message_flags: Mapping[int, int] | None = None) -> GraphMarks:
    """The graph's marks; ``marks`` are the tree marks and ``message_flags`` the store's
    when the caller has read them already (the turn graph's read brings the flags along)."""
    conv = store.conversation(conv_id)
    marks = marks if marks is not None else tree_marks(store, conv_id)
    forks = frozenset(at for _, at in fork_points(store.reader, conv_id))
    return GraphMarks(
        active=frozenset(marks.active), tip=marks.tip,
        labels={k: tuple(v) for k, v in marks.labels.items()},
        notes={k: tuple(v) for k, v in marks.notes.items()},
        message_flags=message_flags if message_flags is not None
        else store.message_flags(conv_id),
        rewinds=frozenset(r["from_tip_id"] for r in store.rewinds(conv_id)),
        forks=forks,
        compactions=frozenset(c["message_id"] for c in store.compactions(conv_id)),
        context_start=conv.context_start_id,
        clean_boundary=conv.clean_tip_id if conv.clean_tip_id != conv.tip_id else None,
        side_links=subagent_links(store.reader, conv_id),
        folded={k: v for k, v in marks.folded.items() if k is not None},
        stale=marks.stale, merges=tuple(marks.merges),
        branch_names=named_and_preferred(marks.branch_names, marks.preferred),
        user_notes=dict(marks.user_notes),
    )
