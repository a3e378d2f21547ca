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
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from explorer.tree.columns import IdIndex, Lazy, TextColumn

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
