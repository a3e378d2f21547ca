"""The graph snapshot of the turn view: one node per turn or folded run (V1).

The model keeps the message view's shape (flat arrays, a grid, node positions)
so the item, the view and the minimap draw it unchanged; ``index`` maps *every*
message id to the node that holds it, so selecting a message from the transcript
selects its turn, and ``ids`` holds each node's last message (a turn boundary:
what branching, forking or a checkpoint "here" means for a turn).
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

from explorer.app.graph.model import (
    COL_W,
    F_RUN,
    F_SIDE,
    ROW_H,
    STYLE_AGENT,
    STYLE_RUN,
    STYLE_SYSTEM,
    STYLE_TURN,
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
from explorer.app.graph.turn_text import TurnView
from explorer.tree.columns import IdIndex, Lazy
from explorer.tree.spine_layout import spine_layout
from explorer.tree.turn_labels import chips, first_words, top_tools
from explorer.tree.turn_runs import TurnProjection

TITLE_CHARS = 80


class NodeIndex(Mapping[int, int]):
    """Message id → node position, through the projection's columns (no dict of 100,000)."""

    __slots__ = ("_proj",)

    def __init__(self, proj: TurnProjection) -> None:
        self._proj = proj

    def __getitem__(self, mid: int) -> int:
        return self._proj.node_of_turn[self._proj.tree.turn_of[mid]]

    def get(self, mid: int, default: Any = None) -> Any:
        t = self._proj.tree.turn_of.get(mid)
        return default if t is None else self._proj.node_of_turn[t]

    def __contains__(self, mid: object) -> bool:
        return mid in self._proj.tree.turn_of

    def __len__(self) -> int:
        return len(self._proj.tree.turn_of)

    def __iter__(self) -> Iterator[int]:
        return cast(Iterator[int], iter(self._proj.tree.turn_of))


def build_turn_model(view: TurnView, marks: GraphMarks) -> GraphModel:
    proj = view.projection
    n = len(proj)
    parents = array("i", proj.parent)
    ids, styles, flags = _node_columns(proj)
    index = NodeIndex(proj)
    tip = index.get(marks.tip, -1) if marks.tip is not None else -1
    lay = spine_layout(parents, tip)  # the active path straight down, branches beside it
    _tool_flags(flags, proj, marks.message_flags)
    for mid, f in node_flags(marks, tools=False).items():
        i = index.get(mid)
        if i is not None:
            flags[i] |= f
    child_start, child_list = _children(parents)
    xs = array("d", (x * COL_W for x in lay.xs))
    ys = array("d", (d * ROW_H for d in lay.depths))
    info = turn_info(view)
    return GraphModel(
        ids=ids, index=index, parents=parents, xs=xs, ys=ys, depths=lay.depths,
        styles=styles, flags=flags,
        child_start=child_start, child_list=child_list,
        roots=array("i", (i for i in range(n) if parents[i] < 0)),
        previews=info.answers, labels=_by_node(marks.labels, index),
        notes=_by_node(marks.notes, index), grid=_grid(xs, ys), bounds=_bounds(xs, ys),
        tip=tip, turns=info,
        tending=tending_by_node(marks, index),
        names=names_by_node(marks.branch_names, index),
        memos=names_by_node(marks.user_notes, index),
    )


def _tool_flags(flags: array[int], proj: TurnProjection, by_message: Mapping[int, int]) -> None:
    """OR each message's tool bits into its node's, walking the flags' own arrays."""
    turn_of, node_of_turn = proj.tree.turn_of, proj.node_of_turn
    if isinstance(by_message, IdIndex) and isinstance(turn_of, IdIndex):
        keys, turns, base, odd = turn_of.raw()
        flagged, bits, _, extra = by_message.raw()
        if base >= 0 and not odd:  # the turns' ids are one range: a subtraction, no search
            n = len(keys)
            for mid, f in zip(flagged, bits, strict=True):
                k = mid - base
                if 0 <= k < n:
                    flags[node_of_turn[turns[k]]] |= f
            _or_pairs(flags, node_of_turn, turn_of, extra.items())
            return
    pairs = by_message.pairs() if isinstance(by_message, IdIndex) else by_message.items()
    _or_pairs(flags, node_of_turn, turn_of, pairs)


def _or_pairs(flags: array[int], node_of_turn: Sequence[int], turn_of: Mapping[Hashable, int],
              pairs: Iterable[tuple[Hashable, int]]) -> None:
    for mid, f in pairs:
        t = turn_of.get(mid)
        if t is not None:
            flags[node_of_turn[t]] |= f


def _node_columns(proj: TurnProjection) -> tuple[array[int], bytes, array[int]]:
    """Per node: the id it is known by (its last message), its box style, and its run and
    subagent flags, in one pass over the projection's own columns (a bushy session has
    ~70,000 nodes: a method call or two per node and column was most of the model's time)."""
    tree = proj.tree
    starts, items = proj.turn_starts, proj.turn_items
    order, turn_starts, agent, sides = tree.order, tree.starts, tree.agent_index, tree.subagent
    prompts = tree.prompts
    n = len(proj)
    ids = array("q", bytes(8 * n))
    styles = bytearray(n)
    flags = array("I", [0]) * n
    for i in range(n):
        first, end = starts[i], starts[i + 1]
        t = items[first]
        ids[i] = cast(int, order[turn_starts[items[end - 1] + 1] - 1])  # integer message ids
        run = end - first > 1
        if run:
            styles[i] = STYLE_RUN
        elif agent[t] >= 0:
            styles[i] = STYLE_AGENT
        else:
            styles[i] = STYLE_SYSTEM if prompts.startswith(t, "[system]") else STYLE_TURN
        flags[i] = (F_SIDE if t in sides else 0) | (F_RUN if run else 0)
    return ids, bytes(styles), flags


def _by_node(
    by_message: Mapping[int, Sequence[str]], index: Mapping[int, int]
) -> dict[int, tuple[str, ...]]:
    out: dict[int, tuple[str, ...]] = {}
    for mid in sorted(by_message):
        i = index.get(mid)
        if i is not None:
            out[i] = (*out.get(i, ()), *by_message[mid])
    return out


class _Words:
    """A node's box words and tooltip, made from the projection's columns when drawn."""

    def __init__(self, view: TurnView) -> None:
        self.view, self.proj = view, view.projection

    def span(self, i: int) -> tuple[int, int]:
        return self.proj.message_count(i), self.proj.turn_count(i)

    def _ends(self, i: int) -> str:
        proj = self.proj
        if proj.message_count(i) == 1:
            return f"#{proj.head(i)}"
        return f"#{proj.head(i)}–#{proj.tail(i)}"

    def title(self, i: int) -> str:
        proj = self.proj
        if proj.is_run(i):
            return f"⋯ {proj.turn_count(i)} turns"
        prompt = proj.tree.prompts[proj.first_turn(i)]
        if prompt:
            return first_words(prompt, TITLE_CHARS)
        above = self._prompt_above(proj.first_turn(i))
        return f"↳ {first_words(above, TITLE_CHARS - 2)}" if above else "↳ (continued)"

    def _prompt_above(self, t: int) -> str:
        """The prompt of the turn a node continues (a regenerated answer, a branch inside a
        turn): its title says which question it answers."""
        tree = self.proj.tree
        for _ in range(256):  # a chain of splits is short; a long one is not worth walking
            t = tree.parent[t]
            if t < 0:
                return ""
            if tree.prompts[t]:
                return str(tree.prompts[t])
        return ""

    def answer(self, i: int) -> str:
        proj = self.proj
        if proj.is_run(i):
            return f"{proj.message_count(i)} messages  ▸ expand"
        return first_words(proj.tree.answers[proj.first_turn(i)], TITLE_CHARS)

    def chip(self, i: int) -> str:
        proj = self.proj
        if proj.is_run(i):
            return ""
        t = proj.first_turn(i)
        return chips(proj.tree.calls[t], proj.tree.errors[t])

    def tooltip(self, i: int) -> str:
        proj = self.proj
        count = proj.message_count(i)
        if proj.is_run(i):
            return (f"{proj.turn_count(i)} turns folded ({self._ends(i)}, {count} messages)\n"
                    "click to show them")
        turn = proj.turn(i)
        sub = self.view.source.subagents.get(turn.head) if turn.is_side else None
        lines = [f"turn {self._ends(i)} · {count} messages"]
        if sub is not None:
            lines.append(f"subagent “{sub.name}”"
                         + (f", started by #{sub.call_message}" if sub.call_message else ""))
        prompt, answer = turn.prompt, turn.answer
        lines += [f"prompt: {first_words(prompt, 120)}" if prompt else "",
                  f"answer: {first_words(answer, 120)}" if answer else ""]
        tools = turn.tools
        if tools:
            lines.append(f"tools: {top_tools(tools, 6)}")
        return "\n".join(x for x in lines if x)


def turn_info(view: TurnView, changes: dict[int, str] | None = None) -> TurnInfo:
    """The nodes' words, made when drawn; ``changes`` are the model changes when another
    process found them already (a walk over every node)."""
    proj = view.projection
    n = len(proj)
    words = _Words(view)
    tree, subagents = proj.tree, view.source.subagents
    agents: dict[int, str] = {}
    for t in sorted(tree.subagent):
        sub = subagents.get(tree.head(t))
        if sub is not None:
            agents[proj.node_of_turn[t]] = sub.name
    return TurnInfo(Lazy(n, words.title), Lazy(n, words.answer), Lazy(n, words.chip), agents,
                    Lazy(n, words.span), Lazy(n, words.tooltip),
                    _model_changes(proj) if changes is None else changes)


def _model_changes(proj: TurnProjection) -> dict[int, str]:
    """Nodes whose first answer came from another model than the answer before them."""
    tree = proj.tree
    first_model, last_model, names = tree.first_model, tree.last_model, tree.model_names
    last = array("I", bytes(4 * len(proj)))  # the model in force after each node
    out: dict[int, str] = {}
    parent, starts, items = proj.parent, proj.turn_starts, proj.turn_items
    for i in range(len(proj)):  # parents come before children
        p = parent[i]
        before = last[p] if p >= 0 else 0
        if starts[i + 1] - starts[i] == 1:  # most nodes: one turn, no run to look through
            t = items[starts[i]]
            first, final = first_model[t], last_model[t]
            if first and before and first != before:
                out[i] = names[first]
        else:
            turns = proj.node_turns(i)
            final = next((last_model[t] for t in reversed(turns) if last_model[t]), 0)
        last[i] = final or before
    return out
