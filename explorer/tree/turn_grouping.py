"""Grouping messages into turns: one depth-first walk that fills a :class:`TurnTree`'s columns.

A turn opens at a prompt (see :func:`opens_turn`) and holds everything up to the next one;
subagent transcripts hang off the call that spawned them rather than counting as roots.
The walk reads :class:`TurnColumns` by position, so it makes no object per message; the
words of the turns' labels are read afterwards, for one prompt and one answer a turn.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import compress
from operator import ne

from explorer.tree.columns import IdIndex, csr
from explorer.tree.turn_labels import answer_words, prompt_words
from explorer.tree.turn_source import (
    ANSWER,
    PROMPT,
    RECORD,
    SYSTEM,
    Previews,
    TurnColumns,
    columns_from_inputs,
)
from explorer.tree.turn_view import TurnInput, TurnTree


class _Builder:
    """Fills a tree's columns. The walk only places messages (its order, each one's turn,
    whether a turn is still only records, which steers where turns open); each turn's counts,
    tools, models and labelling messages are then read off its slice of the order in one pass
    (:meth:`tally`), not per message as it joins: that was most of the grouping's time."""

    def __init__(self, cols: TurnColumns, tree: TurnTree) -> None:
        self.cols, self.tree = cols, tree
        self.order = array("i")  # positions, turn by turn
        self.turn_at = array("i", [-1]) * len(cols)  # by position
        self.labels = array("i")  # by turn: the message whose words label it, -1: none
        self.answers = array("i")  # by turn: the message whose words answer it, -1: none
        self.agents: dict[str, int] = {}

    def open(self, i: int, parent_turn: int) -> int:
        tree = self.tree
        t = len(tree.parent)
        if t:
            tree.starts.append(len(self.order))
        tree.parent.append(parent_turn)
        tree.records_only.append(1 if _setup(self.cols.bits[i], parent_turn < 0) else 0)
        agent = tree.agent_index[parent_turn] if parent_turn >= 0 else -1
        sub = self.cols.subagents.get(i)
        if sub is not None:
            name, call = sub
            tree.subagent[t] = name
            if call is not None:
                tree.spawned_by[t] = call
            if name:
                agent = self.agents.setdefault(name, len(self.agents))
        elif parent_turn < 0:
            tree.roots.append(t)
        tree.agent_index.append(agent)
        return t

    def tally(self) -> None:
        """Each turn's counts, tools, first and last model, label and answer, in turn order."""
        tree, cols, order = self.tree, self.cols, self.order
        if tree.parent:
            tree.starts.append(len(order))
        bits, models, calls, errors = cols.bits, cols.models, cols.calls, cols.errors
        tool_starts, items = cols.tool_starts, cols.tool_items
        starts = tree.starts
        # Which messages name tools; the turns' slices are filtered by it in C.
        tooled = bytearray(map(ne, tool_starts[1:], tool_starts[:-1]))
        for t in range(len(tree.parent)):
            seg = order[starts[t]:starts[t + 1]]
            self.labels.append(_label(seg, bits, tree.parent[t] < 0))
            self.answers.append(next((i for i in reversed(seg) if bits[i] & ANSWER), -1))
            tree.calls.append(sum(map(calls.__getitem__, seg)))
            tree.errors.append(sum(map(errors.__getitem__, seg)))
            named = list(filter(None, map(models.__getitem__, seg)))
            tree.first_model.append(named[0] if named else 0)
            tree.last_model.append(named[-1] if named else 0)
            tools: dict[int, int] = {}
            for i in compress(seg, map(tooled.__getitem__, seg)):
                for k in range(tool_starts[i], tool_starts[i + 1]):
                    tools[items[k]] = tools.get(items[k], 0) + 1
            for word, n in tools.items():
                tree.tool_names.append(word)
                tree.tool_counts.append(n)
            tree.tool_starts.append(len(tree.tool_counts))


def _setup(b: int, root: bool) -> bool:
    """A message that sets a turn up rather than speaks in it: a tool's own record, or, in a
    conversation's first turn, its system text (Codex opens every session with its
    instructions and environment): the first prompt below joins that turn and names it."""
    return bool(b & RECORD or (root and b & SYSTEM))


def _label(seg: array[int], bits: bytearray, root: bool) -> int:
    """The message whose words label a turn: its first one when that is a prompt or a system
    message, else the last prompt while the turn held only what set it up before it."""
    label = seg[0] if bits[seg[0]] & (PROMPT | SYSTEM) else -1
    if not _setup(bits[seg[0]], root):
        return label
    for k in range(1, len(seg)):
        b = bits[seg[k]]
        if b & PROMPT:
            label = seg[k]
        if not _setup(b, root):
            break
    return label


def group_turns(messages: Sequence[TurnInput]) -> TurnTree:
    """Contract the message forest into turn nodes (see the module docstring)."""
    return group_columns(*columns_from_inputs(messages))


def group_columns(cols: TurnColumns, previews: Previews) -> TurnTree:
    """Group columns into turns; ``previews`` is asked for the labelling messages' words."""
    n = len(cols)
    linked = array("i", cols.parents)  # a subagent's root starts a walk of its own
    for i in cols.subagents:
        linked[i] = -1
    kid_starts, kids = csr(linked)
    tree = TurnTree()
    build = _Builder(cols, tree)
    _walk(build, [i for i in range(n) if linked[i] < 0], kid_starts, kids, linked)
    if len(build.order) < n:  # parent cycles: cut each at its first message
        for i in range(n):
            if build.turn_at[i] < 0:
                _walk(build, [i], kid_starts, kids, linked)
    build.tally()
    _words(tree, cols, build, previews)
    tree.agent_names = list(build.agents)
    tree.model_names = list(cols.model_names)
    tree.tool_words = list(cols.tool_words)
    ids = cols.ids
    if isinstance(ids, array):
        tree.order = array("q", map(ids.__getitem__, build.order))
    else:
        tree.order = [ids[i] for i in build.order]
    tree.turn_of = (IdIndex.from_sorted(ids, build.turn_at)
                    if cols.ids_sorted and isinstance(ids, array)
                    else IdIndex(ids, build.turn_at))
    _link_sides(tree)
    return tree


def _walk(build: _Builder, starts: list[int], kid_starts: array[int], kids: array[int],
          linked: array[int]) -> None:
    """Depth first from ``starts``; each message joins its parent's turn or opens one.

    A message opens a turn when it starts a walk, is a subagent's root, is one of several
    children, or is a prompt below anything but what set its turn up (tools' own records:
    Claude Code writes a file snapshot above each prompt; and a first turn's system text),
    so a session does not start with a node for them.
    A chain (one child after another) is followed without a trip through the stack.
    """
    todo = array("i", reversed(starts))
    turns = array("i", [-1]) * len(todo)  # the turn each waiting message's parent is in
    seen, bits, records_only = build.turn_at, build.cols.bits, build.tree.records_only
    parents = build.tree.parent
    order = build.order
    while todo:
        i, t = todo.pop(), turns.pop()
        while seen[i] < 0:
            p = linked[i]
            b = bits[i]
            if (t < 0 or kid_starts[p + 1] - kid_starts[p] > 1
                    or (b & PROMPT and not records_only[t])):
                t = build.open(i, t)
            elif records_only[t] and not _setup(b, parents[t] < 0):
                records_only[t] = 0
            order.append(i)
            seen[i] = t
            first, last = kid_starts[i], kid_starts[i + 1]
            if last - first != 1:
                todo.extend(reversed(kids[first:last]))
                turns.extend(array("i", [t]) * (last - first))
                break
            i = kids[first]


_LABEL_CHUNK = 4096  # turns whose previews are read at once: the read's peak stays small


def _words(tree: TurnTree, cols: TurnColumns, build: _Builder, previews: Previews) -> None:
    """Each turn's prompt and answer words, from the previews of the messages that give them,
    read a chunk of turns at a time (all of a bushy session's at once were ~25 MB)."""
    ids, none = cols.ids, ("", "")
    for at in range(0, len(build.labels), _LABEL_CHUNK):
        labels = build.labels[at:at + _LABEL_CHUNK]
        answers = build.answers[at:at + _LABEL_CHUNK]
        said = previews([ids[i] for i in sorted({*labels, *answers} - {-1})])
        tree.prompts.extend(_prompt(cols, i, said.get(ids[i], none)) if i >= 0 else ""
                            for i in labels)
        tree.answers.extend(answer_words(said.get(ids[i], none)[1]) if i >= 0 else ""
                            for i in answers)
    tree.prompts.freeze()
    tree.answers.freeze()


def _prompt(cols: TurnColumns, i: int, said: tuple[str, str]) -> str:
    """A prompt's words; a turn opened by anything else (a system message) names its role,
    and an agent's own bookkeeping (a notice, a snapshot) is a quiet note, not a system turn."""
    role, text = said
    words = prompt_words(text)
    if cols.bits[i] & PROMPT:
        return words
    return f"[{'note' if cols.bits[i] & RECORD else role}] {words}"


def _link_sides(tree: TurnTree) -> None:
    """Hang each subagent's first turn off the turn holding its call (or keep it apart)."""
    turn_of = tree.turn_of
    for t in sorted(tree.subagent):
        call = tree.spawned_by.get(t)
        owner = turn_of.get(call) if call is not None else None
        if owner is None or _inside(tree, owner, t):
            tree.spawned_by.pop(t, None)
            tree.side_roots.append(t)
            continue
        tree.parent[t] = owner
    own, side = array("i", tree.parent), array("i", [-1]) * len(tree.parent)
    for t in tree.subagent:
        own[t], side[t] = -1, tree.parent[t]
    tree.child_starts, tree.child_items = csr(own)
    tree.side_starts, tree.side_items = csr(side)


def _inside(tree: TurnTree, t: int, top: int) -> bool:
    """True when turn ``t`` lies in the subtree of ``top`` (a link there would make a loop)."""
    seen = 0
    parent = tree.parent
    while t >= 0 and seen <= len(parent):
        if t == top:
            return True
        t = parent[t]
        seen += 1
    return False
