"""One table of positions standing in for the key maps a fresh import needs.

Storing a new conversation asks three questions of each message key: which row id it
gets, which message it is, and whether it is in the import. Three dicts answered them,
each with an entry per message (tens of megabytes for a 100,000-message session); the
row ids of a new conversation are one contiguous range in message order, so a single
``key -> position`` table answers all three.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import TypeVar

from explorer.tree.model import Message

V = TypeVar("V")


def positions(messages: Sequence[Message]) -> dict[Hashable, int]:
    """Each message's position by its key (keys are unique in a repaired tree)."""
    return {m.id: i for i, m in enumerate(messages)}


def sound_positions(messages: Sequence[Message]) -> dict[Hashable, int] | None:
    """Each message's position by its key when no key repeats and every parent comes
    before its children (a tree the repair leaves as it is, written in the order given);
    None otherwise. The usual import asks this once, instead of a set of every key to
    judge the tree, another to check the write order, and then this table."""
    where: dict[Hashable, int] = {}
    for i, m in enumerate(messages):
        if m.id in where or (m.parent_id is not None and m.parent_id not in where):
            return None
        where[m.id] = i
    return where


class _ByPosition(Mapping[Hashable, V]):
    """A mapping over the keys of one position table; subclasses say what a position gives."""

    def __init__(self, where: dict[Hashable, int]) -> None:
        self._where = where

    @abstractmethod
    def _at(self, position: int) -> V:
        """What the key at ``position`` stands for."""

    def __getitem__(self, key: Hashable) -> V:
        return self._at(self._where[key])

    def __contains__(self, key: object) -> bool:
        return key in self._where

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


class RowIds(_ByPosition[int]):
    """The row id of each key: the first id of the range plus the key's position."""

    def __init__(self, where: dict[Hashable, int], first: int) -> None:
        super().__init__(where)
        self._first = first

    def _at(self, position: int) -> int:
        return self._first + position


class ByKey(_ByPosition[Message]):
    """The message of each key, read from the list by position."""

    def __init__(self, where: dict[Hashable, int], messages: Sequence[Message]) -> None:
        super().__init__(where)
        self._messages = messages

    def _at(self, position: int) -> Message:
        return self._messages[position]
