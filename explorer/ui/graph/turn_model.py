"""The graph snapshot of the turn view: one node per turn or folded run (V1).

The model keeps the message view's shape (flat arrays, a grid, node positions)
so the item, the view and the minimap draw it unchanged; ``index`` maps *every*
message id to the node that holds it, so selecting a message from the transcript
selects its turn, and ``ids`` holds each node's last message (a turn boundary:
what branching, forking or a checkpoint "here" means for a turn).
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Mapping, Sequence
from typing import cast

from explorer.app.turn_text import TurnView, node_subagent
from explorer.tree.spine_layout import spine_layout
from explorer.tree.turn_labels import chips, first_words, top_tools
from explorer.ui.graph.model import (
    COL_W,
    F_RUN,
    F_SIDE,
    ROW_H,
    GraphMarks,
    GraphModel,
    TurnInfo,
    _bounds,
    _children,
    _grid,
    names_by_node,
    node_flags,
    tending_by_node,
)
from explorer.ui.graph.palette import STYLE_AGENT, STYLE_RUN, STYLE_SYSTEM, STYLE_TURN

TITLE_CHARS = 80


def build_turn_model(view: TurnView, marks: GraphMarks) -> GraphModel:
    proj = view.projection
    n = len(proj.nodes)
    parents = array("i", (node.parent for node in proj.nodes))
    members = [proj.messages(i) for i in range(n)]
    ids = array("q", (_int(m[-1]) for m in members))
    index = {_int(mid): i for i, ms in enumerate(members) for mid in ms}
    tip = index.get(marks.tip, -1) if marks.tip is not None else -1
    lay = spine_layout(parents, tip)  # the active path straight down, branches beside it
    flags = array("I", [0]) * n
    message_flags = node_flags(marks)
    for i, ms in enumerate(members):
        f = 0
        for mid in ms:
            f |= message_flags.get(_int(mid), 0)
        flags[i] = f | (F_SIDE if proj.is_side(i) else 0) | (F_RUN if proj.nodes[i].is_run else 0)
    child_start, child_list = _children(parents)
    xs = array("d", (x * COL_W for x in lay.xs))
    ys = array("d", (d * ROW_H for d in lay.depths))
    info = _info(view, members)
    return GraphModel(
        ids=ids, index=index, parents=parents, xs=xs, ys=ys, depths=lay.depths,
        styles=bytes(_style(view, i) for i in range(n)), flags=flags,
        child_start=child_start, child_list=child_list,
        roots=array("i", (i for i in range(n) if parents[i] < 0)),
        previews=info.answers, labels=_by_node(marks.labels, index),
        notes=_by_node(marks.notes, index), grid=_grid(xs, ys), bounds=_bounds(xs, ys),
        tip=tip, turns=info,
        tending=tending_by_node(marks, index),
        names=names_by_node(marks.branch_names, index),
        memos=names_by_node(marks.user_notes, index),
    )


def _style(view: TurnView, i: int) -> int:
    proj = view.projection
    if proj.nodes[i].is_run:
        return STYLE_RUN
    turn = proj.turn(i)
    if turn.agent is not None:
        return STYLE_AGENT
    return STYLE_SYSTEM if turn.prompt.startswith("[system]") else STYLE_TURN


def _int(mid: Hashable) -> int:
    return cast(int, mid)  # the store's message ids are integers


def _by_node(
    by_message: Mapping[int, Sequence[str]], index: dict[int, int]
) -> dict[int, tuple[str, ...]]:
    out: dict[int, tuple[str, ...]] = {}
    for mid in sorted(by_message):
        i = index.get(mid)
        if i is not None:
            out[i] = (*out.get(i, ()), *by_message[mid])
    return out


def _info(view: TurnView, members: list[list[Hashable]]) -> TurnInfo:
    proj = view.projection
    titles, answers, chip_list, tips = [], [], [], []
    agents: dict[int, str] = {}
    spans = []
    for i, node in enumerate(proj.nodes):
        ms = members[i]
        spans.append((len(ms), len(node.turns)))
        span = f"#{ms[0]}" if len(ms) == 1 else f"#{ms[0]}–#{ms[-1]}"
        if node.is_run:
            titles.append(f"⋯ {len(node.turns)} turns")
            answers.append(f"{len(ms)} messages  ▸ expand")
            chip_list.append("")
            tips.append(f"{len(node.turns)} turns folded ({span}, {len(ms)} messages)\n"
                        "click to show them")
            continue
        turn = proj.turn(i)
        titles.append(first_words(turn.prompt, TITLE_CHARS) if turn.prompt else "↳ (continued)")
        answers.append(first_words(turn.answer, TITLE_CHARS))
        chip_list.append(chips(turn.tool_calls, turn.tool_errors))
        sub = node_subagent(view, i)
        if sub is not None:
            agents[i] = sub.name
        lines = [f"turn {span} · {len(ms)} messages"]
        if sub is not None:
            lines.append(f"subagent “{sub.name}”"
                         + (f", started by #{sub.call_message}" if sub.call_message else ""))
        lines += [f"prompt: {first_words(turn.prompt, 120)}" if turn.prompt else "",
                  f"answer: {first_words(turn.answer, 120)}" if turn.answer else ""]
        if turn.tools:
            lines.append(f"tools: {top_tools(turn.tools, 6)}")
        tips.append("\n".join(x for x in lines if x))
    return TurnInfo(titles, answers, chip_list, agents, spans, tips, _model_changes(view))


def _model_changes(view: TurnView) -> dict[int, str]:
    """Nodes whose first answer came from another model than the answer before them."""
    proj = view.projection
    turns = proj.tree.turns
    last: list[str | None] = [None] * len(proj.nodes)  # the model in force after each node
    out: dict[int, str] = {}
    for i, node in enumerate(proj.nodes):  # parents come before children
        before = last[node.parent] if node.parent >= 0 else None
        first = next((turns[t].first_model for t in node.turns if turns[t].first_model), None)
        final = next((turns[t].last_model for t in reversed(node.turns)
                      if turns[t].last_model), None)
        if first and before and first != before and not node.is_run:
            out[i] = first
        last[i] = final or before
    return out
