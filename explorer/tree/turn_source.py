"""What the turn grouping reads of each message, as columns by position.

Read as one object per message, a 100,000-message session cost ~26 MB at the peak
of its open and most of the graph worker's time holding the GIL; here the same
facts are a few arrays that a store read fills without a Python object per message.
Previews are not held at all: the grouping asks for the few it labels turns with
(a turn's prompt and its answer), through a :data:`Previews` reader.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from explorer.tree.columns import id_column
from explorer.tree.turn_view import TurnInput

# Bits of ``TurnColumns.bits``.
PROMPT = 1  # opens a turn (see ``opens_turn``)
ANSWER = 2  # an assistant message with words: its preview is the turn's answer
RECORD = 4  # a tool's own record (a notice, a file snapshot), not a person's words
SYSTEM = 8  # a system message: its words label a turn it opens

# Bits of ``TurnColumns.part_bits``: what a message's parts are.
CALLS = 1  # a tool call among them
RESULTS = 2  # a tool result
FAILS = 4  # a part marked as an error

Previews = Callable[[list[Hashable]], Mapping[Hashable, tuple[str, str]]]
"""Message ids → (role, preview) for those ids: read only for the messages labels use."""


@dataclass(eq=False)
class TurnColumns:
    """Messages by position (the store's are in id order); parents as positions.

    ``tool_items[tool_starts[i]:tool_starts[i + 1]]`` are the tools message ``i``
    called, as indexes into ``tool_words``; ``models[i]`` indexes ``model_names``
    (0: none; only answers carry a model).
    """

    ids: Sequence[Hashable]
    parents: array[int]  # -1: a root, or a parent outside these messages
    bits: bytearray
    calls: array[int]
    errors: array[int]
    models: array[int]
    tool_starts: array[int]
    tool_items: array[int]
    model_names: list[str] = field(default_factory=lambda: [""])
    tool_words: list[str] = field(default_factory=list)
    subagents: dict[int, tuple[str, Hashable | None]] = field(default_factory=dict)
    """By position of a subagent transcript's root: its name and the spawning call's message."""
    ids_sorted: bool = False  # ``ids`` is an ascending integer array (the store's read)
    part_bits: bytearray = field(default_factory=bytearray)
    """By position: CALLS, RESULTS, FAILS among a message's parts (empty: not read)."""

    def __len__(self) -> int:
        return len(self.parents)

    def nbytes(self) -> int:
        arrays = [self.parents, self.calls, self.errors, self.models, self.tool_starts,
                  self.tool_items]
        if isinstance(self.ids, array):
            arrays.append(self.ids)
        return sum(a.itemsize * len(a) for a in arrays) + len(self.bits) + len(self.part_bits)

    def without(self, hidden: Collection[Hashable]) -> TurnColumns:
        """The columns with the ``hidden`` messages left out (archived branches, T6)."""
        if not hidden:
            return self
        keep = [i for i, mid in enumerate(self.ids) if mid not in hidden]
        if len(keep) == len(self):
            return self
        new_at = array("i", [-1]) * len(self)
        for k, i in enumerate(keep):
            new_at[i] = k
        starts, items = array("I", [0]), array("I")
        for i in keep:
            items.extend(self.tool_items[self.tool_starts[i]:self.tool_starts[i + 1]])
            starts.append(len(items))
        ids = self.ids
        return TurnColumns(
            ids=array("q", (ids[i] for i in keep)) if isinstance(ids, array)
            else [ids[i] for i in keep],
            parents=array("i", (new_at[self.parents[i]] if self.parents[i] >= 0 else -1
                                for i in keep)),
            bits=bytearray(self.bits[i] for i in keep),
            calls=array("I", (self.calls[i] for i in keep)),
            errors=array("I", (self.errors[i] for i in keep)),
            models=array("I", (self.models[i] for i in keep)),
            tool_starts=starts, tool_items=items, model_names=self.model_names,
            tool_words=self.tool_words,
            subagents={new_at[i]: s for i, s in self.subagents.items() if new_at[i] >= 0},
            ids_sorted=self.ids_sorted,
            part_bits=bytearray(self.part_bits[i] for i in keep) if self.part_bits
            else bytearray(),
        )


def input_bits(m: TurnInput) -> int:
    answer = m.role == "assistant" and m.has_text and bool(m.preview)
    return ((PROMPT if m.prompt else 0) | (ANSWER if answer else 0)
            | (RECORD if m.record else 0) | (SYSTEM if m.role == "system" else 0))


def columns_from_inputs(messages: Sequence[TurnInput]) -> tuple[TurnColumns, Previews]:
    """Columns of hand-made inputs in their given order, and a reader of their previews."""
    at = {m.id: i for i, m in enumerate(messages)}
    models: dict[str, int] = {}
    words: dict[str, int] = {}
    starts, items = array("I", [0]), array("I")
    for m in messages:
        items.extend(words.setdefault(name, len(words)) for name in m.tools)
        starts.append(len(items))
    cols = TurnColumns(
        ids=id_column(m.id for m in messages),
        parents=array("i", (at.get(m.parent_id, -1) if m.parent_id is not None else -1
                            for m in messages)),
        bits=bytearray(input_bits(m) for m in messages),
        calls=array("I", (m.tool_calls for m in messages)),
        errors=array("I", (m.tool_errors for m in messages)),
        models=array("I", (models.setdefault(m.model, len(models) + 1) if m.model else 0
                           for m in messages)),
        tool_starts=starts, tool_items=items, model_names=["", *models],
        tool_words=list(words),
        subagents={i: (m.subagent, m.spawned_by) for i, m in enumerate(messages)
                   if m.subagent is not None},
    )
    by_id = {m.id: (m.role, m.preview) for m in messages}

    def previews(ids: list[Hashable]) -> dict[Hashable, tuple[str, str]]:
        return {mid: by_id[mid] for mid in ids}

    return cols, previews
