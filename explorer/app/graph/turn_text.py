"""The turn view of a conversation, as ``convo tree --turns`` prints it and the graph draws it.

``turn_view`` reads the store once and projects (V1); the text and JSON forms
below are two pictures of that same projection, so the command line and the
window can never disagree about which messages a turn holds.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from explorer.app.views.read import tree_marks
from explorer.app.views.tree_text import TreeMarks
from explorer.store import Store
from explorer.store.turn_reads import (
    SubagentInfo,
    TurnSource,
    read_previews,
    read_turn_source,
)
from explorer.tree.turn_grouping import group_columns
from explorer.tree.turn_labels import chips, first_words, top_tools
from explorer.tree.turn_runs import MIN_RUN, TurnProjection, collapse_runs


@dataclass
class TurnView:
    conversation_id: int
    source: TurnSource
    projection: TurnProjection
    marks: TreeMarks


def kept_messages(marks: TreeMarks) -> set[Hashable]:
    """Messages whose turn is never folded into a run: the tip, checkpoints, other marks."""
    keep: set[Hashable] = set(marks.labels) | set(marks.notes)
    if marks.tip is not None:
        keep.add(marks.tip)
    return keep


def turn_view(
    store: Store, conv_id: int, expanded: Collection[Hashable] = (), min_run: int = MIN_RUN
) -> TurnView:
    read = read_turn_source(store.reader, conv_id)
    marks = tree_marks(store, conv_id)
    assert read.columns is not None
    tree = group_columns(read.columns, partial(read_previews, store.reader))
    source = TurnSource(None, read.subagents)
    projection = collapse_runs(tree, kept_messages(marks) | set(expanded), min_run)
    return TurnView(conv_id, source, projection, marks)


def node_subagent(view: TurnView, node: int) -> SubagentInfo | None:
    turn = view.projection.turn(node)
    return view.source.subagents.get(turn.head) if turn.is_side else None


def _by_message(marks: TreeMarks) -> tuple[dict[Hashable, Sequence[str]],
                                            dict[Hashable, Sequence[str]]]:
    return dict(marks.labels.items()), dict(marks.notes.items())


def turn_json(view: TurnView) -> dict[str, Any]:
    proj, marks = view.projection, view.marks
    labels, notes = _by_message(marks)
    nodes = []
    for node in proj.nodes:
        i = node.index
        turn = proj.turn(i)
        mids = proj.messages(i)
        parent = proj.turn(node.parent).head if node.parent >= 0 else None
        sub = node_subagent(view, i)
        entry: dict[str, Any] = {
            "id": turn.head, "kind": "run" if node.is_run else "turn", "parent": parent,
            "link": "subagent" if turn.is_side else ("child" if parent is not None else "root"),
            "messages": mids, "turns": len(node.turns),
            "active": any(m in marks.active for m in mids),
            "tip": marks.tip in mids if marks.tip is not None else False,
            "labels": [lbl for m in mids for lbl in labels.get(m, ())],
            "notes": [n for m in mids for n in notes.get(m, ())],
            "agent": turn.agent,
        }
        if not node.is_run:
            entry.update(prompt=turn.prompt, answer=turn.answer, tool_calls=turn.tool_calls,
                         tool_errors=turn.tool_errors, tools=dict(turn.tools),
                         model=turn.last_model)
        if sub is not None:
            entry["subagent"] = {"name": sub.name, "agent_id": sub.agent_id,
                                 "type": sub.agent_type, "call": sub.call_message,
                                 "tool_use_id": sub.tool_use_id}
        nodes.append(entry)
    return {"conversation": view.conversation_id, "view": "turns", "tip": marks.tip,
            "nodes": nodes}


def turn_lines(view: TurnView, width: int = 100) -> list[str]:
    """One line per node; straight runs stay in one column, branches and subagents indent."""
    proj = view.projection
    lines: list[str] = []
    tops = [*proj.roots, *proj.side_roots]
    stack = [(n, *_prefixes("", i == len(tops) - 1, len(tops) > 1))
             for i, n in reversed(list(enumerate(tops)))]
    while stack:
        n, head, rest = stack.pop()
        lines.append(_line(view, n, head, width))
        node = proj.nodes[n]
        below = [*node.side, *node.children]
        many = len(below) > 1
        for i, c in reversed(list(enumerate(below))):
            stack.append((c, *_prefixes(rest, i == len(below) - 1, many)))
    return lines


def _prefixes(rest: str, last: bool, many: bool) -> tuple[str, str]:
    if not many:
        return rest, rest
    return rest + ("└─ " if last else "├─ "), rest + ("   " if last else "│  ")


def _line(view: TurnView, n: int, prefix: str, width: int) -> str:
    proj, marks = view.projection, view.marks
    node = proj.nodes[n]
    mids = proj.messages(n)
    tip = marks.tip is not None and marks.tip in mids
    bullet = "◆" if tip else ("●" if any(m in marks.active for m in mids) else "○")
    span = f"#{mids[0]}" if len(mids) == 1 else f"#{mids[0]}–#{mids[-1]}"
    if node.is_run:
        return f"{prefix}{bullet} ⋯ {len(node.turns)} turns ({span}, {len(mids)} messages)"
    turn = proj.turn(n)
    sub = node_subagent(view, n)
    lead = ""
    if sub is not None:
        call = f" from #{sub.call_message}" if sub.call_message is not None else ""
        lead = f"⤷ subagent “{first_words(sub.name, 40)}”{call}: "
    labels, notes = _by_message(marks)
    tags = [f"[{lbl}]" for m in mids for lbl in labels.get(m, ())]
    tags += [f"({note})" for m in mids for note in notes.get(m, ())]
    chip = chips(turn.tool_calls, turn.tool_errors)
    if turn.tools:
        chip += f" ({top_tools(turn.tools, 2)})"
    tail = "".join(f"  {t}" for t in [chip, *tags] if t)
    head = f"{prefix}{bullet} {span} {lead}"
    words = turn.prompt or "…"
    if turn.answer:
        words += f" → {turn.answer}"
    room = max(12, width - len(head) - len(tail))
    return head + first_words(words, room) + tail
