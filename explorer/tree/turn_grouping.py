"""Grouping messages into turns: one depth-first walk that fills a :class:`TurnTree`'s columns.

A turn opens at a prompt (see :func:`opens_turn`) and holds everything up to the next one;
subagent transcripts hang off the call that spawned them rather than counting as roots.
The walk reads :class:`TurnColumns` by position, so it makes no object per message; the
words of the turns' labels are read afterwards, for one prompt and one answer a turn.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

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
    """Fills a tree's columns; only the newest turn is ever open (a walk finishes one chain
    before it starts the next), so its counts and tools are kept here until it closes."""

    def __init__(self, cols: TurnColumns, tree: TurnTree) -> None:
        self.cols, self.tree = cols, tree
        self.order = array("i")  # positions, turn by turn
        self.turn_at = array("i", [-1]) * len(cols)  # by position
        self.labels = array("i")  # by turn: the message whose words label it, -1: none
        self.answers = array("i")  # by turn: the message whose words answer it, -1: none
        self.agents: dict[str, int] = {}
        self.current = -1
        self._reset()

    def _reset(self) -> None:
        self.label = self.answer = -1
        self.calls = self.errors = 0
        self.tools: dict[int, int] = {}
        self.first_model = self.last_model = 0

    def open(self, i: int, parent_turn: int) -> int:
        self.close()
        tree = self.tree
        t = len(tree.parent)
        self.current = t
        tree.parent.append(parent_turn)
        tree.records_only.append(1 if self.cols.bits[i] & RECORD else 0)
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

    def join(self, i: int, t: int) -> None:
        """Add message ``i`` to turn ``t``, the one open (a chain continues only that one)."""
        cols, tree = self.cols, self.tree
        first = tree.starts[t] == len(self.order)
        self.order.append(i)
        self.turn_at[i] = t
        bits = cols.bits[i]
        records_only = tree.records_only[t]
        if (first and bits & (PROMPT | SYSTEM)) or (bits & PROMPT and records_only):
            self.label = i
        if records_only and not bits & RECORD:
            tree.records_only[t] = 0
        if bits & ANSWER:
            self.answer = i
        model = cols.models[i]
        if model:
            self.first_model = self.first_model or model
            self.last_model = model
        self.calls += cols.calls[i]
        self.errors += cols.errors[i]
        items, tools = cols.tool_items, self.tools
        for k in range(cols.tool_starts[i], cols.tool_starts[i + 1]):
            tools[items[k]] = tools.get(items[k], 0) + 1

    def close(self) -> None:
        """Write the open turn's counts, in turn order."""
        if self.current < 0:
            return
        tree = self.tree
        tree.starts.append(len(self.order))
        self.labels.append(self.label)
        self.answers.append(self.answer)
        tree.calls.append(self.calls)
        tree.errors.append(self.errors)
        for word, n in self.tools.items():
            tree.tool_names.append(word)
            tree.tool_counts.append(n)
        tree.tool_starts.append(len(tree.tool_counts))
        tree.first_model.append(self.first_model)
        tree.last_model.append(self.last_model)
        self.current = -1
        self._reset()


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
    build.close()
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
    children, or is a prompt below anything but tools' own records (Claude Code writes a
    file snapshot above each prompt, so a session does not start with a node for them).
    A chain (one child after another) is followed without a trip through the stack.
    """
    todo = array("i", reversed(starts))
    turns = array("i", [-1]) * len(todo)  # the turn each waiting message's parent is in
    seen, bits, records_only = build.turn_at, build.cols.bits, build.tree.records_only
    while todo:
        i, t = todo.pop(), turns.pop()
        while seen[i] < 0:
            p = linked[i]
            if (t < 0 or kid_starts[p + 1] - kid_starts[p] > 1
                    or (bits[i] & PROMPT and not records_only[t])):
                t = build.open(i, t)
            build.join(i, t)
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
    """A prompt's words; a turn opened by anything else (a system message) names its role."""
    role, text = said
    words = prompt_words(text)
    return words if cols.bits[i] & PROMPT else f"[{role}] {words}"


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
