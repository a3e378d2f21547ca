"""The turn view (V1): the message tree contracted into turns, subagents hung off their calls.

A turn is a prompt and everything up to the next prompt: tool calls, tool results
and answers fold into it. Concretely a message opens a new turn node when it is a
root, a prompt, the first message of a subagent transcript, or one of several
children of its parent (a branch inside a turn splits it there, so every turn node
is a straight chain of messages and the branch stays visible). Every message
belongs to exactly one turn node.

Subagent transcripts are stored as separate roots; here their first turn hangs
off the turn that holds the call that started them, flagged as a side branch. A
side branch is never one of its parent's own children and never a root, so it
never counts as a sibling of the conversation's own messages.
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from explorer.tree.columns import IdIndex, Lazy, TextColumn, csr, id_column
from explorer.tree.turn_labels import answer_words, prompt_words

NOT_PROMPTS = ("<local-command", "Caveat:", "[Request interrupted")


def opens_turn(role: str, tool_result_only: bool, preview: str) -> bool:
    """A user message a person wrote, not tool output or a local command's echo."""
    return role == "user" and not tool_result_only and not preview.lstrip().startswith(
        NOT_PROMPTS)


@dataclass(slots=True)
class TurnInput:
    """What the projection needs of one message (no full text)."""

    id: Hashable
    parent_id: Hashable | None
    role: str
    preview: str = ""
    prompt: bool = False  # opens a turn (see ``opens_turn``)
    has_text: bool = True  # an answer with words, not only tool calls or thinking
    tool_calls: int = 0
    tool_errors: int = 0
    tools: tuple[str, ...] = ()  # names of the tools it called
    subagent: str | None = None  # on a subagent transcript's root: the agent's name
    spawned_by: Hashable | None = None  # on that root: the message holding the spawning call
    model: str | None = None  # the model that wrote it (answers only)
    record: bool = False  # a tool's own record (a notice, a file snapshot), not a person's words


class Turn:
    """One turn node, read from its tree's columns when asked: a straight chain of messages."""

    __slots__ = ("_tree", "index")

    def __init__(self, tree: TurnTree, index: int) -> None:
        self._tree, self.index = tree, index

    @property
    def messages(self) -> list[Hashable]:
        return list(self._tree.message_ids(self.index))

    @property
    def parent(self) -> int:
        """Turn index; for a side branch, the turn holding the spawning call; -1 for a root."""
        return self._tree.parent[self.index]

    @property
    def children(self) -> list[int]:
        """Own children, in input order."""
        return list(self._tree.children(self.index))

    @property
    def side(self) -> list[int]:
        """Subagent turns started from this one."""
        return list(self._tree.side(self.index))

    @property
    def subagent(self) -> str | None:
        """Set on the first turn of a subagent transcript."""
        return self._tree.subagent.get(self.index)

    @property
    def spawned_by(self) -> Hashable | None:
        """The call's message, on that same turn (None when it is not in the tree)."""
        return self._tree.spawned_by.get(self.index)

    @property
    def agent(self) -> str | None:
        """Every turn of a subagent transcript carries its name."""
        return self._tree.agent_of(self.index)

    @property
    def prompt(self) -> str:
        return self._tree.prompts[self.index]

    @property
    def answer(self) -> str:
        return self._tree.answers[self.index]

    @property
    def tool_calls(self) -> int:
        return self._tree.calls[self.index]

    @property
    def tool_errors(self) -> int:
        return self._tree.errors[self.index]

    @property
    def tools(self) -> dict[str, int]:
        return self._tree.tools(self.index)

    @property
    def first_model(self) -> str | None:
        """The model of its first answer."""
        return self._tree.model_names[self._tree.first_model[self.index]] or None

    @property
    def last_model(self) -> str | None:
        """And of its last."""
        return self._tree.model_names[self._tree.last_model[self.index]] or None

    @property
    def records_only(self) -> bool:
        """It holds only tools' own records."""
        return bool(self._tree.records_only[self.index])

    @property
    def head(self) -> Hashable:
        return self._tree.order[self._tree.starts[self.index]]

    @property
    def tail(self) -> Hashable:
        return self._tree.order[self._tree.starts[self.index + 1] - 1]

    @property
    def is_side(self) -> bool:
        """The first turn of a subagent transcript (linked to its call, not a child)."""
        return self.index in self._tree.subagent


class TurnTree:
    """The turns in columns (see :mod:`explorer.tree.columns`), parents before children.

    Turn ``t`` holds messages ``order[starts[t]:starts[t + 1]]``: a depth-first walk
    visits a turn's chain in one stretch, so each turn is one slice of ``order``.
    """

    def __init__(self) -> None:
        self.order: Sequence[Hashable] = []  # message ids, turn by turn
        self.starts = array("I", [0])  # one more than there are turns
        self.parent = array("i")
        self.agent_index = array("i")  # into agent_names, -1: not a subagent's turn
        self.agent_names: list[str] = []
        self.subagent: dict[int, str] = {}  # on the first turn of a subagent transcript
        self.spawned_by: dict[int, Hashable] = {}  # on those turns: the spawning call
        self.prompts = TextColumn()
        self.answers = TextColumn()
        self.calls = array("I")
        self.errors = array("I")
        self.tool_starts = array("I", [0])
        self.tool_names = array("I")  # into tool_words, pairs with tool_counts
        self.tool_counts = array("I")
        self.tool_words: list[str] = []
        self.first_model = array("I")  # into model_names; 0: no model
        self.last_model = array("I")
        self.model_names: list[str] = [""]
        self.records_only = bytearray()
        self.roots: list[int] = []  # the conversation's own roots (never a subagent)
        self.side_roots: list[int] = []  # subagent starts whose spawning call is not in the tree
        self.turn_of: Mapping[Hashable, int] = {}  # message id → turn index
        self.child_starts, self.child_items = array("i", [0]), array("i")
        self.side_starts, self.side_items = array("i", [0]), array("i")

    @property
    def turns(self) -> Lazy[Turn]:
        """``tree.turns[t]``: a view of turn ``t`` made when asked, never stored."""
        return Lazy(len(self.parent), lambda t: Turn(self, t))

    def __len__(self) -> int:
        return len(self.parent)

    def message_ids(self, t: int) -> Sequence[Hashable]:
        return self.order[self.starts[t]:self.starts[t + 1]]

    def size(self, t: int) -> int:
        return self.starts[t + 1] - self.starts[t]

    def head(self, t: int) -> Hashable:
        return self.order[self.starts[t]]

    def tail(self, t: int) -> Hashable:
        return self.order[self.starts[t + 1] - 1]

    def is_side(self, t: int) -> bool:
        return t in self.subagent

    def children(self, t: int) -> Sequence[int]:
        return self.child_items[self.child_starts[t]:self.child_starts[t + 1]]

    def side(self, t: int) -> Sequence[int]:
        return self.side_items[self.side_starts[t]:self.side_starts[t + 1]]

    def agent_of(self, t: int) -> str | None:
        k = self.agent_index[t]
        return self.agent_names[k] if k >= 0 else None

    def tools(self, t: int) -> dict[str, int]:
        words, counts = self.tool_words, self.tool_counts
        return {words[self.tool_names[k]]: counts[k]
                for k in range(self.tool_starts[t], self.tool_starts[t + 1])}

    def siblings(self, t: int) -> list[int]:
        """Own siblings of turn ``t``: subagents are never among them, nor have any."""
        if self.is_side(t):
            return [t]
        p = self.parent[t]
        return self.roots if p < 0 else list(self.children(p))

    def nbytes(self) -> int:
        """Bytes the columns hold (what a 100,000-message tree costs, for the tests)."""
        arrays = [self.starts, self.parent, self.agent_index, self.calls, self.errors,
                  self.tool_starts, self.tool_names, self.tool_counts, self.first_model,
                  self.last_model, self.child_starts, self.child_items, self.side_starts,
                  self.side_items]
        if isinstance(self.order, array):
            arrays.append(self.order)
        turn_of = self.turn_of.nbytes() if isinstance(self.turn_of, IdIndex) else 0
        return (sum(a.itemsize * len(a) for a in arrays) + len(self.records_only)
                + self.prompts.nbytes() + self.answers.nbytes() + turn_of)


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
