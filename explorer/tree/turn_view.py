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

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

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


@dataclass(slots=True)
class Turn:
    """One turn node: a straight chain of messages, head first."""

    index: int
    messages: list[Hashable]
    parent: int = -1  # turn index; for a side branch, the turn holding the spawning call
    children: list[int] = field(default_factory=list)  # own children, in input order
    side: list[int] = field(default_factory=list)  # subagent turns started from this one
    subagent: str | None = None  # set on the first turn of a subagent transcript
    spawned_by: Hashable | None = None  # the call's message, on that same turn
    agent: str | None = None  # every turn of a subagent transcript carries its name
    prompt: str = ""
    answer: str = ""
    tool_calls: int = 0
    tool_errors: int = 0
    tools: dict[str, int] = field(default_factory=dict)
    first_model: str | None = None  # the model of its first answer
    last_model: str | None = None  # and of its last
    records_only: bool = False  # so far it holds only tools' own records

    @property
    def head(self) -> Hashable:
        return self.messages[0]

    @property
    def tail(self) -> Hashable:
        return self.messages[-1]

    @property
    def is_side(self) -> bool:
        """The first turn of a subagent transcript (linked to its call, not a child)."""
        return self.subagent is not None


@dataclass
class TurnTree:
    turns: list[Turn]  # parents before children
    roots: list[int]  # the conversation's own roots (never a subagent)
    side_roots: list[int]  # subagent starts whose spawning call is not in the tree
    turn_of: dict[Hashable, int]  # message id → turn index

    def siblings(self, t: int) -> list[int]:
        """Own siblings of turn ``t``: subagents are never among them, nor have any."""
        turn = self.turns[t]
        if turn.is_side:
            return [t]
        return self.roots if turn.parent < 0 else self.turns[turn.parent].children


def group_turns(messages: Sequence[TurnInput]) -> TurnTree:
    """Contract the message forest into turn nodes (see the module docstring)."""
    by_id = {m.id: m for m in messages}
    kids: dict[Hashable, list[TurnInput]] = {}
    starts: list[TurnInput] = []
    for m in messages:
        if m.subagent is not None or m.parent_id is None or m.parent_id not in by_id:
            starts.append(m)
        else:
            kids.setdefault(m.parent_id, []).append(m)
    tree = TurnTree([], [], [], {})
    _walk(tree, starts, kids, by_id)
    seen = tree.turn_of
    if len(seen) < len(messages):  # parent cycles: cut each at its first message
        for m in messages:
            if m.id not in seen:
                _walk(tree, [m], kids, by_id)
    _link_sides(tree, by_id)
    return tree


def _walk(
    tree: TurnTree, starts: Iterable[TurnInput], kids: dict[Hashable, list[TurnInput]],
    by_id: dict[Hashable, TurnInput],
) -> None:
    """Depth first from ``starts``; each message joins its parent's turn or opens one."""
    stack: list[tuple[TurnInput, int]] = [(m, -1) for m in reversed(list(starts))]
    turns, turn_of = tree.turns, tree.turn_of
    while stack:
        m, parent_turn = stack.pop()
        if m.id in turn_of:
            continue
        t = parent_turn
        if _opens(m, t, turns, kids):
            t = _open(tree, m, parent_turn)
        else:
            turns[t].messages.append(m.id)
        turn_of[m.id] = t
        _absorb(turns[t], m)
        children = kids.get(m.id, ())
        stack.extend((c, t) for c in reversed(children))
        del m


def _opens(m: TurnInput, t: int, turns: list[Turn], kids: dict[Hashable, list[TurnInput]]
           ) -> bool:
    """Whether ``m`` opens a turn node rather than joining its parent's (``t``). A prompt
    joins a turn that so far holds only tools' own records (Claude Code writes a file
    snapshot above each prompt), so a session does not start with a node of its own for them."""
    if t < 0 or m.subagent is not None or len(kids[m.parent_id]) > 1:
        return True
    return m.prompt and not turns[t].records_only


def _open(tree: TurnTree, m: TurnInput, parent_turn: int) -> int:
    t = len(tree.turns)
    turn = Turn(t, [m.id], parent=parent_turn, records_only=m.record)
    if m.subagent is not None:
        turn.subagent, turn.spawned_by = m.subagent, m.spawned_by
    if parent_turn >= 0:
        turn.agent = tree.turns[parent_turn].agent
        tree.turns[parent_turn].children.append(t)
    elif m.subagent is None:
        tree.roots.append(t)
    turn.agent = turn.subagent or turn.agent
    tree.turns.append(turn)
    return t


def _absorb(turn: Turn, m: TurnInput) -> None:
    if (len(turn.messages) == 1 and (m.prompt or m.role == "system")) or (
            m.prompt and turn.records_only):
        words = prompt_words(m.preview)
        turn.prompt = words if m.prompt else f"[{m.role}] {words}"
    turn.records_only = turn.records_only and m.record
    if m.role == "assistant" and m.has_text and m.preview:
        turn.answer = answer_words(m.preview)
    if m.model:
        turn.first_model = turn.first_model or m.model
        turn.last_model = m.model
    turn.tool_calls += m.tool_calls
    turn.tool_errors += m.tool_errors
    for name in m.tools:
        turn.tools[name] = turn.tools.get(name, 0) + 1


def _link_sides(tree: TurnTree, by_id: dict[Hashable, TurnInput]) -> None:
    """Hang each subagent's first turn off the turn holding its call (or keep it apart)."""
    for turn in tree.turns:
        if not turn.is_side:
            continue
        call = turn.spawned_by
        owner = tree.turn_of.get(call) if call is not None and call in by_id else None
        if owner is None or _inside(tree, owner, turn.index):
            turn.spawned_by = None
            tree.side_roots.append(turn.index)
            continue
        turn.parent = owner
        tree.turns[owner].side.append(turn.index)


def _inside(tree: TurnTree, t: int, top: int) -> bool:
    """True when turn ``t`` lies in the subtree of ``top`` (a link there would make a loop)."""
    seen = 0
    while t >= 0 and seen <= len(tree.turns):
        if t == top:
            return True
        t = tree.turns[t].parent
        seen += 1
    return False
