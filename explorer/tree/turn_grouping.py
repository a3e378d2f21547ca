"""Grouping messages into turns: one depth-first walk that fills a :class:`TurnTree`'s columns.

A turn opens at a prompt (see :func:`opens_turn`) and holds everything up to the next one;
subagent transcripts hang off the call that spawned them rather than counting as roots.
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Iterable, Mapping, Sequence

from explorer.tree.columns import IdIndex, csr, id_column
from explorer.tree.turn_labels import answer_words, prompt_words
from explorer.tree.turn_view import TurnInput, TurnTree


class _Builder:
    """Fills a tree's columns; only the newest turn is ever open (a walk finishes one chain
    before it starts the next), so its words and tools are kept here until it closes."""

    def __init__(self, tree: TurnTree) -> None:
        self.tree = tree
        self.order: list[Hashable] = []
        self.seen: set[Hashable] = set()  # messages placed so far
        self.agents: dict[str, int] = {}
        self.models: dict[str, int] = {}
        self.words: dict[str, int] = {}
        self.current = -1
        self._reset()

    def _reset(self) -> None:
        self.prompt = self.answer = ""
        self.calls = self.errors = 0
        self.tools: dict[str, int] = {}
        self.first_model = self.last_model = 0

    def open(self, m: TurnInput, parent_turn: int) -> int:
        self.close()
        tree = self.tree
        t = len(tree.parent)
        self.current = t
        tree.parent.append(parent_turn)
        tree.records_only.append(1 if m.record else 0)
        agent = tree.agent_index[parent_turn] if parent_turn >= 0 else -1
        if m.subagent is not None:
            tree.subagent[t] = m.subagent
            if m.spawned_by is not None:
                tree.spawned_by[t] = m.spawned_by
            if m.subagent:
                agent = self.agents.setdefault(m.subagent, len(self.agents))
        elif parent_turn < 0:
            tree.roots.append(t)
        tree.agent_index.append(agent)
        return t

    def join(self, m: TurnInput, t: int) -> None:
        assert t == self.current, "a chain continues only the turn just opened"
        self.order.append(m.id)
        self.seen.add(m.id)
        self._absorb(m)

    def _absorb(self, m: TurnInput) -> None:
        tree, t = self.tree, self.current
        first = self.tree.starts[t] == len(self.order) - 1
        records_only = tree.records_only[t]
        if (first and (m.prompt or m.role == "system")) or (m.prompt and records_only):
            words = prompt_words(m.preview)
            self.prompt = words if m.prompt else f"[{m.role}] {words}"
        tree.records_only[t] = 1 if records_only and m.record else 0
        if m.role == "assistant" and m.has_text and m.preview:
            self.answer = answer_words(m.preview)
        if m.model:
            k = self.models.setdefault(m.model, len(self.models) + 1)
            self.first_model = self.first_model or k
            self.last_model = k
        self.calls += m.tool_calls
        self.errors += m.tool_errors
        for name in m.tools:
            self.tools[name] = self.tools.get(name, 0) + 1

    def close(self) -> None:
        """Write the open turn's words and counts, in turn order."""
        if self.current < 0:
            return
        tree = self.tree
        tree.starts.append(len(self.order))
        tree.prompts.append(self.prompt)
        tree.answers.append(self.answer)
        tree.calls.append(self.calls)
        tree.errors.append(self.errors)
        for name, n in self.tools.items():
            tree.tool_names.append(self.words.setdefault(name, len(self.words)))
            tree.tool_counts.append(n)
        tree.tool_starts.append(len(tree.tool_counts))
        tree.first_model.append(self.first_model)
        tree.last_model.append(self.last_model)
        self.current = -1
        self._reset()

    def finish(self) -> None:
        self.close()
        tree = self.tree
        tree.agent_names = list(self.agents)
        tree.model_names = ["", *self.models]
        tree.tool_words = list(self.words)
        tree.prompts.freeze()
        tree.answers.freeze()


_Kids = dict[Hashable, "TurnInput | list[TurnInput]"]
"""Children by parent id: the one child itself, or a list when a branch has several (a
list per message would cost ~9 MB on a 100,000-message session)."""


def group_turns(messages: Sequence[TurnInput]) -> TurnTree:
    """Contract the message forest into turn nodes (see the module docstring)."""
    by_id = {m.id: m for m in messages}
    kids: _Kids = {}
    starts: list[TurnInput] = []
    for m in messages:
        if m.subagent is not None or m.parent_id is None or m.parent_id not in by_id:
            starts.append(m)
            continue
        got = kids.get(m.parent_id)
        if got is None:
            kids[m.parent_id] = m
        elif isinstance(got, list):
            got.append(m)
        else:
            kids[m.parent_id] = [got, m]
    tree = TurnTree()
    build = _Builder(tree)
    _walk(build, starts, kids)
    if len(build.seen) < len(messages):  # parent cycles: cut each at its first message
        for m in messages:
            if m.id not in build.seen:
                _walk(build, [m], kids)
    build.finish()
    del kids, starts
    build.seen.clear()
    tree.order = id_column(build.order)
    build.order.clear()
    turn_at = array("i", bytes(4 * len(tree.order)))
    for t in range(len(tree.parent)):
        for k in range(tree.starts[t], tree.starts[t + 1]):
            turn_at[k] = t
    tree.turn_of = IdIndex(tree.order, turn_at)
    _link_sides(tree, tree.turn_of, by_id)
    return tree


def _walk(build: _Builder, starts: Iterable[TurnInput], kids: _Kids) -> None:
    """Depth first from ``starts``; each message joins its parent's turn or opens one."""
    stack: list[tuple[TurnInput, int]] = [(m, -1) for m in reversed(list(starts))]
    seen = build.seen
    while stack:
        m, parent_turn = stack.pop()
        if m.id in seen:
            continue
        t = parent_turn
        if _opens(m, t, build.tree, kids):
            t = build.open(m, parent_turn)
        build.join(m, t)
        children = kids.get(m.id)
        if isinstance(children, list):
            stack.extend((c, t) for c in reversed(children))
        elif children is not None:
            stack.append((children, t))
        del m


def _opens(m: TurnInput, t: int, tree: TurnTree, kids: _Kids) -> bool:
    """Whether ``m`` opens a turn node rather than joining its parent's (``t``). A prompt
    joins a turn that so far holds only tools' own records (Claude Code writes a file
    snapshot above each prompt), so a session does not start with a node of its own for them."""
    if t < 0 or m.subagent is not None or isinstance(kids[m.parent_id], list):
        return True
    return m.prompt and not tree.records_only[t]


def _link_sides(tree: TurnTree, turn_of: Mapping[Hashable, int],
                by_id: Mapping[Hashable, TurnInput]) -> None:
    """Hang each subagent's first turn off the turn holding its call (or keep it apart)."""
    for t in sorted(tree.subagent):
        call = tree.spawned_by.get(t)
        owner = turn_of.get(call) if call is not None and call in by_id else None
        if owner is None or _inside(tree, owner, t):
            tree.spawned_by.pop(t, None)
            tree.side_roots.append(t)
            continue
        tree.parent[t] = owner
    side = tree.subagent
    tree.child_starts, tree.child_items = csr(tree.parent, lambda t: t not in side)
    tree.side_starts, tree.side_items = csr(tree.parent, side.__contains__)


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
