"""A conversation's rows made where it was read (another process), so its writer only adds
the ids: the window's import child, a big sync's readers and a huge session's fill."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from explorer.store.rows import MESSAGE_COLS, Prepared, loads, part_from_row, prepared_rows
from explorer.tree.model import Message, Part


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


_CALLS = ("tool_use", "tool_result")


class SentLight(MadeRows):
    """The rows of a conversation a reading process read whole, its messages sent light.

    The rows hold every part's text and each message's metadata already, and pickled beside
    them the parts and metadata cost the sync's process as much again to unpickle, on the
    thread that shares the interpreter with the writer: a third of a first sync's main
    thread. So the messages travel with their tool calls and results only, without text
    (what a huge session's light messages keep), and without metadata, and get both back
    from the rows whenever a chunk of them is read (:meth:`ImportedConversation.chunks`: a
    merge that compares or rewrites them)."""

    rows_complete = True
    """Every message it made light has its rows: a writer of rows fills none of them."""

    def __init__(self, made: dict[Hashable, Any]) -> None:
        super().__init__(made)
        self._held: dict[Hashable, tuple[list[Part], dict[str, Any]]] = {}

    def shed(self, messages: Sequence[Message]) -> None:
        """Make light each message whose rows were made of it (not a later duplicate of
        its id, whose own parts stay)."""
        seen: set[Hashable] = set()
        for m in messages:
            if m.id in seen or m.id not in self.made:
                continue
            seen.add(m.id)
            m.parts = [Part(p.kind, "", p.tool_name, p.tool_use_id, p.is_error)
                       for p in m.parts if p.kind in _CALLS]
            m.source_meta = {}

    def fill(self, messages: Sequence[Message]) -> None:
        for m in messages:
            made = self.made.get(m.id)
            if made is None or m.id in self._held:
                continue
            self._held[m.id] = (m.parts, m.source_meta)
            m.parts, m.source_meta = parts_of(made[1], made[2]), loads(made[0][_META])

    def release(self, messages: Sequence[Message]) -> None:
        for m in messages:
            held = self._held.pop(m.id, None)
            if held is not None:
                m.parts, m.source_meta = held


_META = MESSAGE_COLS.split(", ").index("source_meta") - 3
"""Where a prepared message row (``prepared_rows``: less its three ids) holds the metadata."""


def parts_of(rows: Sequence[tuple[Any, ...]], blobs: dict[str, tuple[bytes, str | None]],
             ) -> list[Part]:
    """The parts ``part_rows`` made these rows of (less the message id), as they were."""
    return [part_from_row(kind, text, tool_name, tool_use_id, is_error,
                          blobs[blob][0] if blob is not None else None, media_type, meta)
            for _idx, kind, text, tool_name, tool_use_id, is_error, blob, media_type, meta,
            *_sizes in rows]
