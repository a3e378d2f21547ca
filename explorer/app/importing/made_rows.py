"""A conversation's rows made where it was read (another process), so its writer only adds
the ids: the window's import child, a big sync's readers and a huge session's fill."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from explorer.store.rows import Prepared, prepared_rows
from explorer.tree.model import Message


def made_rows(messages: Sequence[Message]) -> dict[Hashable, Prepared]:
    """Each message's rows by id (the first of a duplicate id, as the repair keeps)."""
    rows: dict[Hashable, Prepared] = {}
    for m in messages:
        if m.id not in rows:
            rows[m.id] = prepared_rows(m)
    return rows


class MadeRows:
    """A content source with nothing to fill whose rows were made beforehand (``ReadyRows``)."""

    def __init__(self, made: dict[Hashable, Any] | None = None) -> None:
        self.made: dict[Hashable, Any] = made if made is not None else {}

    def fill(self, messages: Sequence[Message]) -> None:
        pass

    def release(self, messages: Sequence[Message]) -> None:
        pass

    def rows(self, message: Message) -> tuple[Any, ...] | None:
        made: tuple[Any, ...] | None = self.made.get(message.id)
        return made
