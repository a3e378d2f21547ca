"""The plain records an importer yields and the store writes: one conversation at a time.

They sit in the domain layer because two layers share them: ``formats`` produces them and
``store`` (below it) persists them; ``explorer.formats.base`` re-exports them for importers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from explorer.tree.errors import ExplorerError
from explorer.tree.model import Message


@dataclass
class ImportedCheckpoint:
    label: str
    message_key: Hashable


@dataclass
class ImportedCompaction:
    """A compaction another tool made (e.g. a summary across a boundary)."""

    message_key: Hashable
    kind: str
    summary: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class ImportedRewind:
    """A rewind recorded by a previous export of our own format."""

    from_key: Hashable
    to_key: Hashable
    label: str
    digest: dict[str, Any] = field(default_factory=dict)
    created_at: float | None = None


CONTENT_CHUNK = 500
"""Messages given their full content at a time when a conversation's content is read lazily."""


class ContentUnavailable(ExplorerError, ValueError):
    """A lazily read message's content cannot be read again (its file changed or went)."""


class ContentSource(Protocol):
    """Where the full content of a lazily read conversation's messages is.

    A huge session is read in two passes: the tree (keys, parents, roles, tool ids
    and enough text for previews and the title) first, each message's parts and
    source metadata when it is written. The writer fills a chunk, writes it and
    releases it, so an import holds one chunk of content, never the whole file.
    """

    def fill(self, messages: Sequence[Message]) -> None:
        """Give ``messages`` (of this conversation) their full parts and source metadata.

        Raises :class:`ContentUnavailable` when the source no longer holds them.
        """

    def release(self, messages: Sequence[Message]) -> None:
        """Put ``messages`` back to their light form once written."""


@runtime_checkable
class ReadyRows(Protocol):
    """A content source that also hands the writer each message's rows, made beforehand
    (where the import read the file), so writing adds only the ids. One with the rows of
    every message it made light says so with ``rows_complete = True``: the writer then
    writes them without filling the messages."""

    def rows(self, message: Message) -> tuple[Any, ...] | None:
        """The message's prepared rows (``explorer.store.rows.Prepared``), or None."""


@runtime_checkable
class RowsOnly(Protocol):
    """A content source whose rows come from elsewhere (reading processes, a window's import
    child): the writer asks it for a chunk's rows only, and the messages stay light;
    :meth:`ContentSource.fill` still gives them their content, for a reader that compares
    or rewrites them."""

    def fill_rows(self, messages: Sequence[Message]) -> None:
        """Make the rows of ``messages`` ready (:meth:`ReadyRows.rows`). Raises
        :class:`ContentUnavailable` as ``fill`` does."""

    def release(self, messages: Sequence[Message]) -> None:
        """Let the rows (and any content filled) of ``messages`` go once written."""


@dataclass
class ImportedConversation:
    """One conversation as read from a source file, before storage."""

    title: str
    source_format: str
    messages: list[Message]
    tip: Hashable | None = None
    source_id: str | None = None
    source_aliases: list[str] = field(default_factory=list)
    """Ids the source gave the same conversation before (an import made under one of them
    is this conversation, and takes ``source_id`` from now on)."""
    source_path: str | None = None
    created_at: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    checkpoints: list[ImportedCheckpoint] = field(default_factory=list)
    compactions: list[ImportedCompaction] = field(default_factory=list)
    rewinds: list[ImportedRewind] = field(default_factory=list)
    context_start: Hashable | None = None
    incomplete: bool = False
    notes: list[str] = field(default_factory=list)
    ignored_records: Counter[str] = field(default_factory=Counter)
    content: ContentSource | None = None
    no_lone_surrogates: bool = False  # its reader saw no escape of one: nothing to repair
    """Set when the messages hold only their tree and previews (see :class:`ContentSource`)."""
    written: Callable[[int], None] | None = None
    """Told the number of messages of each chunk the store has just written (progress)."""

    def chunks(self, messages: Sequence[Message] | None = None,
               size: int | None = None, *, content: bool = True,
               ) -> Iterator[Sequence[Message]]:
        """``messages`` (default: all) in chunks, each with its full content while it is held
        (``content=False``: as they are, for a writer that needs only their rows)."""
        todo = self.messages if messages is None else messages
        size = size or CONTENT_CHUNK
        source = self.content if content else None
        for start in range(0, len(todo), size):
            chunk = todo[start:start + size]
            if source is not None:
                source.fill(chunk)
            try:
                yield chunk
            finally:
                if source is not None:
                    source.release(chunk)

    def materialize(self) -> ImportedConversation:
        """Every message with its full content from now on (for readers of small results)."""
        if self.content is not None:
            self.content.fill(self.messages)
            self.content = None
        return self
