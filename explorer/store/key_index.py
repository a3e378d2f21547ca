"""One table of positions standing in for the key maps a fresh import needs.

Storing a new conversation asks three questions of each message key: which row id it
gets, which message it is, and whether it is in the import. Three dicts answered them,
each with an entry per message (tens of megabytes for a 100,000-message session); the
row ids of a new conversation are one contiguous range in message order, so a single
``key -> position`` table answers all three.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence

from explorer.tree.model import Message


def positions(messages: Sequence[Message]) -> dict[Hashable, int]:
    """Each message's position by its key (keys are unique in a repaired tree)."""
    return {m.id: i for i, m in enumerate(messages)}


class RowIds(Mapping[Hashable, int]):
    """The row id of each key: the first id of the range plus the key's position."""

    def __init__(self, where: dict[Hashable, int], first: int) -> None:
        self._where = where
        self._first = first

    def __getitem__(self, key: Hashable) -> int:
        return self._first + self._where[key]

    def __contains__(self, key: object) -> bool:
        return key in self._where

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


class ByKey(Mapping[Hashable, Message]):
    """The message of each key, read from the list by position."""

    def __init__(self, where: dict[Hashable, int], messages: Sequence[Message]) -> None:
        self._where = where
        self._messages = messages

    def __getitem__(self, key: Hashable) -> Message:
        return self._messages[self._where[key]]

    def __contains__(self, key: object) -> bool:
        return key in self._where

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)
